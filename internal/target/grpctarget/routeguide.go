package grpctarget

import (
	"context"
	"errors"
	"io"
	"math"
	"sync"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/types/dynamicpb"
)

// point is a position in E7 degrees.
type point struct{ lat, lon int32 }

// feature is a named place of the route guide's database.
type feature struct {
	name string
	at   point
}

// features are the places the route guide knows: those k6's examples send and look
// up, in New Jersey and New York.
var features = []feature{
	{"Patriots Path, Mendham, NJ 07945, USA", point{407838351, -746143763}},
	{"101 New Jersey 10, Whippany, NJ 07981, USA", point{408122808, -743999179}},
	{"U.S. 6, Shohola, PA 18458, USA", point{413628156, -749015468}},
	{"5 Conners Road, Kingston, NY 12401, USA", point{419999544, -740371136}},
	{"Mid Hudson Psychiatric Center, New Hampton, NY 10958, USA", point{414008389, -743951297}},
	{"287 Flugertown Road, Livingston Manor, NY 12758, USA", point{419611318, -746524769}},
	{"4001 Tremley Point Road, Linden, NJ 07036, USA", point{406109563, -742186778}},
	{"352 South Mountain Road, Wallkill, NY 12589, USA", point{416802456, -742370183}},
	{"Bailey Turn Road, Harriman, NY 10926, USA", point{412950425, -741077389}},
	{"193-199 Wawayanda Road, Hewitt, NJ 07421, USA", point{412144655, -743949739}},
	{"Berkshire Valley Management Area Trail, Jefferson, NJ, USA", point{410248224, -747127767}},
}

func addRouteGuide(h map[string]any) {
	h["main.FeatureExplorer/GetFeature"] = unaryFunc(getFeature)
	h["main.FeatureExplorer/ListFeatures"] = streamFunc(listFeatures)
	h["main.RouteGuide/RecordRoute"] = streamFunc(recordRoute)
	var notes routeNotes
	h["main.RouteGuide/RouteChat"] = streamFunc(notes.chat)
}

func readPoint(m protoreflect.Message) point {
	return point{int32(m.Get(field(m, "latitude")).Int()), int32(m.Get(field(m, "longitude")).Int())}
}

func writePoint(m protoreflect.Message, p point) {
	m.Set(field(m, "latitude"), protoreflect.ValueOfInt32(p.lat))
	m.Set(field(m, "longitude"), protoreflect.ValueOfInt32(p.lon))
}

// writeFeature fills a Feature message.
func writeFeature(m protoreflect.Message, f feature) {
	m.Set(field(m, "name"), protoreflect.ValueOfString(f.name))
	writePoint(m.Mutable(field(m, "location")).Message(), f.at)
}

// getFeature answers the feature at the point, or a nameless one there.
func getFeature(_ context.Context, in, out *dynamicpb.Message) error {
	p := readPoint(in)
	f := feature{at: p}
	for _, known := range features {
		if known.at == p {
			f = known
		}
	}
	writeFeature(out, f)
	return nil
}

// listFeatures streams the features inside the request's rectangle.
func listFeatures(st grpc.ServerStream, md protoreflect.MethodDescriptor) error {
	in := dynamicpb.NewMessage(md.Input())
	if err := st.RecvMsg(in); err != nil {
		return err
	}
	lo := readPoint(in.Get(field(in, "lo")).Message())
	hi := readPoint(in.Get(field(in, "hi")).Message())
	for _, f := range features {
		if !inside(f.at, lo, hi) {
			continue
		}
		out := dynamicpb.NewMessage(md.Output())
		writeFeature(out, f)
		if err := st.SendMsg(out); err != nil {
			return err
		}
	}
	return nil
}

func inside(p, a, b point) bool {
	return p.lat >= min(a.lat, b.lat) && p.lat <= max(a.lat, b.lat) && p.lon >= min(a.lon, b.lon) && p.lon <= max(a.lon, b.lon)
}

// recordRoute reads points until the client ends and answers their summary.
func recordRoute(st grpc.ServerStream, md protoreflect.MethodDescriptor) error {
	start := time.Now()
	var count, named, dist int32
	var last *point
	for {
		in := dynamicpb.NewMessage(md.Input())
		err := st.RecvMsg(in)
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return err
		}
		p := readPoint(in)
		count++
		for _, f := range features {
			if f.at == p {
				named++
			}
		}
		if last != nil {
			dist += int32(distance(*last, p))
		}
		last = &p
	}
	out := dynamicpb.NewMessage(md.Output())
	out.Set(field(out, "point_count"), protoreflect.ValueOfInt32(count))
	out.Set(field(out, "feature_count"), protoreflect.ValueOfInt32(named))
	out.Set(field(out, "distance"), protoreflect.ValueOfInt32(dist))
	out.Set(field(out, "elapsed_time"), protoreflect.ValueOfInt32(int32(time.Since(start)/time.Second)))
	return st.SendMsg(out)
}

// distance is the great-circle distance between two points in metres.
func distance(a, b point) float64 {
	const e7, earth = 1e7, 6371000.0
	rad := func(v int32) float64 { return float64(v) / e7 * math.Pi / 180 }
	lat1, lat2 := rad(a.lat), rad(b.lat)
	dlat, dlon := lat2-lat1, rad(b.lon)-rad(a.lon)
	h := math.Sin(dlat/2)*math.Sin(dlat/2) + math.Cos(lat1)*math.Cos(lat2)*math.Sin(dlon/2)*math.Sin(dlon/2)
	return earth * 2 * math.Atan2(math.Sqrt(h), math.Sqrt(1-h))
}

// routeNotes are the notes every RouteChat call left, by point.
type routeNotes struct {
	mu sync.Mutex
	at map[point][]string
}

// chat answers each note with the notes left before at its point, then keeps it.
func (n *routeNotes) chat(st grpc.ServerStream, md protoreflect.MethodDescriptor) error {
	for {
		in := dynamicpb.NewMessage(md.Input())
		err := st.RecvMsg(in)
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return err
		}
		p := readPoint(in.Get(field(in, "location")).Message())
		msg := in.Get(field(in, "message")).String()
		n.mu.Lock()
		if n.at == nil {
			n.at = map[point][]string{}
		}
		prior := append([]string(nil), n.at[p]...)
		n.at[p] = append(n.at[p], msg)
		n.mu.Unlock()
		for _, text := range prior {
			out := dynamicpb.NewMessage(md.Output())
			writePoint(out.Mutable(field(out, "location")).Message(), p)
			out.Set(field(out, "message"), protoreflect.ValueOfString(text))
			if err := st.SendMsg(out); err != nil {
				return err
			}
		}
	}
}
