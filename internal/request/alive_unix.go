//go:build unix

package request

import (
	"net"
	"syscall"
)

// alive reports whether the peer of an idle connection has not closed it and
// sent nothing unasked: a non-blocking peek at the socket. A request that may
// not be retried is only sent on a connection that passes it, as net/http's
// per-connection read loop would have noticed the close.
func alive(conn net.Conn) bool {
	if cc, ok := conn.(*countingConn); ok {
		conn = cc.Conn
	}
	sc, ok := conn.(syscall.Conn)
	if !ok {
		return true
	}
	rc, err := sc.SyscallConn()
	if err != nil {
		return false
	}
	open := false
	var b [1]byte
	err = rc.Read(func(fd uintptr) bool {
		_, _, err := syscall.Recvfrom(int(fd), b[:], syscall.MSG_PEEK|syscall.MSG_DONTWAIT)
		// Nothing to read: open. A byte, the end of the stream or an error: not.
		open = err == syscall.EAGAIN || err == syscall.EWOULDBLOCK
		return true // never wait for readability
	})
	return open && err == nil
}
