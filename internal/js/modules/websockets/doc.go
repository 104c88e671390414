// Package websockets is k6's two WebSocket modules (reference/k6-js.md), on
// github.com/gorilla/websocket:
//
//   - `k6/ws` (Legacy): ws.connect(url, params, callback) blocks the VU, runs the
//     socket's handlers and its setTimeout/setInterval on the VU's goroutine until
//     the connection closes, and returns the handshake's Response (url, status,
//     headers, body, error);
//   - `k6/websockets` (New; also `k6/experimental/websockets`, which k6 v2 keeps as a
//     deprecated alias): the browser's WebSocket class and Blob. Its events run on
//     the VU's event loop (modules.State.Loop): the iteration ends once every socket
//     it opened has closed.
//
// Both emit k6's WebSocket metrics, tagged with the VU's tags, the params' tags, url
// (or the name tag), status and subproto: ws_connecting and ws_sessions when the
// handshake succeeds, ws_msgs_sent and ws_msgs_received per message, ws_ping from a
// ping to its pong, ws_session_duration when the session ends, and the session's
// data_sent and data_received.
//
// A connection that fails (a closed port, a refused handshake) emits no ws_*
// sample. ws.connect returns a Response whose status is 0 (or the refusing
// status), error the reason and error_code k6's error code (1212 for a refused
// connection), or throws with the throw option. A WebSocket dispatches an error
// event (event.error is the reason) and a close event (code 1006); without an error
// handler the error fails the iteration as an exception.
//
// The WebSocket's protocols argument (k6: "reserved for future use") is honoured: a
// string or an array of strings offered as subprotocols. Not supported: the VU's
// default cookie jar (params.jar is honoured), and the hosts, blacklistIPs and dns
// options for the handshake's dial.
package websockets
