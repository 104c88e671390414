package redis

import (
	"context"
	"fmt"
	"math"
	"time"

	"github.com/grafana/sobek"
)

// method is a Client method: it reads its arguments on the VU's goroutine and
// returns the command to run.
type method func(args []sobek.Value) (func(ctx context.Context) (result, error), error)

// keyValueAndListMethods returns the key-value and list methods.
func (cl *client) keyValueAndListMethods() map[string]method {
	c := cl.c
	return map[string]method{
		// Key-value.
		"set": func(a []sobek.Value) (func(context.Context) (result, error), error) {
			v, err := value(a, 1)
			if err != nil {
				return nil, err
			}
			k, ttl := key(a), time.Duration(arg(a, 2).ToInteger())*time.Second
			return str(func(ctx context.Context) (string, error) { return c.Set(ctx, k, v, ttl).Result() }), nil
		},
		"get":    key1(func(ctx context.Context, k string) (result, error) { return strRes(c.Get(ctx, k).Result()) }),
		"getDel": key1(func(ctx context.Context, k string) (result, error) { return strRes(c.GetDel(ctx, k).Result()) }),
		"getSet": keyValue(func(ctx context.Context, k string, v any) (result, error) {
			return strRes(c.GetSet(ctx, k, v).Result())
		}),
		"del":    keys(func(ctx context.Context, ks []string) (result, error) { return intRes(c.Del(ctx, ks...).Result()) }),
		"exists": keys(func(ctx context.Context, ks []string) (result, error) { return intRes(c.Exists(ctx, ks...).Result()) }),
		"incr":   key1(func(ctx context.Context, k string) (result, error) { return intRes(c.Incr(ctx, k).Result()) }),
		"decr":   key1(func(ctx context.Context, k string) (result, error) { return intRes(c.Decr(ctx, k).Result()) }),
		"incrBy": keyInt(func(ctx context.Context, k string, n int64) (result, error) {
			return intRes(c.IncrBy(ctx, k, n).Result())
		}),
		"decrBy": keyInt(func(ctx context.Context, k string, n int64) (result, error) {
			return intRes(c.DecrBy(ctx, k, n).Result())
		}),
		"randomKey": func([]sobek.Value) (func(context.Context) (result, error), error) {
			return func(ctx context.Context) (result, error) { return strRes(c.RandomKey(ctx).Result()) }, nil
		},
		"mget": keys(func(ctx context.Context, ks []string) (result, error) { return anyRes(c.MGet(ctx, ks...).Result()) }),
		"expire": keyInt(func(ctx context.Context, k string, n int64) (result, error) {
			return boolRes(c.Expire(ctx, k, time.Duration(n)*time.Second).Result())
		}),
		"ttl":     key1(func(ctx context.Context, k string) (result, error) { return intRes(c.Do(ctx, "TTL", k).Int64()) }),
		"persist": key1(func(ctx context.Context, k string) (result, error) { return boolRes(c.Persist(ctx, k).Result()) }),
		// Lists.
		"lpush": keyValues(func(ctx context.Context, k string, vs []any) (result, error) {
			return intRes(c.LPush(ctx, k, vs...).Result())
		}),
		"rpush": keyValues(func(ctx context.Context, k string, vs []any) (result, error) {
			return intRes(c.RPush(ctx, k, vs...).Result())
		}),
		"lpop": key1(func(ctx context.Context, k string) (result, error) { return strRes(c.LPop(ctx, k).Result()) }),
		"rpop": key1(func(ctx context.Context, k string) (result, error) { return strRes(c.RPop(ctx, k).Result()) }),
		"lrange": func(a []sobek.Value) (func(context.Context) (result, error), error) {
			k, start, stop := key(a), arg(a, 1).ToInteger(), arg(a, 2).ToInteger()
			return func(ctx context.Context) (result, error) { return strsRes(c.LRange(ctx, k, start, stop).Result()) }, nil
		},
		"lindex": keyInt(func(ctx context.Context, k string, i int64) (result, error) {
			return strRes(c.LIndex(ctx, k, i).Result())
		}),
		"lset": func(a []sobek.Value) (func(context.Context) (result, error), error) {
			k, i := key(a), arg(a, 1).ToInteger()
			v, err := value(a, 2)
			return str(func(ctx context.Context) (string, error) { return c.LSet(ctx, k, i, v).Result() }), err
		},
		"lrem": func(a []sobek.Value) (func(context.Context) (result, error), error) {
			k, n := key(a), arg(a, 1).ToInteger()
			v, err := value(a, 2)
			return func(ctx context.Context) (result, error) { return intRes(c.LRem(ctx, k, n, v).Result()) }, err
		},
		"llen": key1(func(ctx context.Context, k string) (result, error) { return intRes(c.LLen(ctx, k).Result()) }),
	}
}

// methods returns the Client's methods by name, as k6 documents them.
func (cl *client) methods() map[string]func(sobek.FunctionCall) sobek.Value {
	table := cl.keyValueAndListMethods()
	cl.hashAndSetMethods(table)
	out := make(map[string]func(sobek.FunctionCall) sobek.Value, len(table))
	for name, m := range table {
		out[name] = func(call sobek.FunctionCall) sobek.Value {
			do, err := m(call.Arguments)
			if err != nil {
				// As k6 documents it: an argument of a type Redis does not take rejects.
				do = func(context.Context) (result, error) { return nil, err }
			}
			return cl.async(name, do)
		}
	}
	return out
}

// hashAndSetMethods adds the hash, set and miscellaneous methods to table.
func (cl *client) hashAndSetMethods(table map[string]method) {
	c := cl.c
	field := func(a []sobek.Value) string { return arg(a, 1).String() }
	table["hset"] = func(a []sobek.Value) (func(context.Context) (result, error), error) {
		k, f := key(a), field(a)
		v, err := value(a, 2)
		return func(ctx context.Context) (result, error) { return intRes(c.HSet(ctx, k, f, v).Result()) }, err
	}
	table["hsetnx"] = func(a []sobek.Value) (func(context.Context) (result, error), error) {
		k, f := key(a), field(a)
		v, err := value(a, 2)
		return func(ctx context.Context) (result, error) { return boolRes(c.HSetNX(ctx, k, f, v).Result()) }, err
	}
	table["hget"] = func(a []sobek.Value) (func(context.Context) (result, error), error) {
		k, f := key(a), field(a)
		return func(ctx context.Context) (result, error) { return strRes(c.HGet(ctx, k, f).Result()) }, nil
	}
	table["hdel"] = func(a []sobek.Value) (func(context.Context) (result, error), error) {
		k, fs := key(a), stringArgs(a, 1)
		return func(ctx context.Context) (result, error) { return intRes(c.HDel(ctx, k, fs...).Result()) }, nil
	}
	table["hgetall"] = key1(func(ctx context.Context, k string) (result, error) { return mapRes(c.HGetAll(ctx, k).Result()) })
	table["hkeys"] = key1(func(ctx context.Context, k string) (result, error) { return strsRes(c.HKeys(ctx, k).Result()) })
	table["hvals"] = key1(func(ctx context.Context, k string) (result, error) { return strsRes(c.HVals(ctx, k).Result()) })
	table["hlen"] = key1(func(ctx context.Context, k string) (result, error) { return intRes(c.HLen(ctx, k).Result()) })
	table["hincrby"] = func(a []sobek.Value) (func(context.Context) (result, error), error) {
		k, f, n := key(a), field(a), arg(a, 2).ToInteger()
		return func(ctx context.Context) (result, error) { return intRes(c.HIncrBy(ctx, k, f, n).Result()) }, nil
	}
	table["sadd"] = keyValues(func(ctx context.Context, k string, vs []any) (result, error) {
		return intRes(c.SAdd(ctx, k, vs...).Result())
	})
	table["srem"] = keyValues(func(ctx context.Context, k string, vs []any) (result, error) {
		return intRes(c.SRem(ctx, k, vs...).Result())
	})
	table["sismember"] = keyValue(func(ctx context.Context, k string, v any) (result, error) {
		return boolRes(c.SIsMember(ctx, k, v).Result())
	})
	table["smembers"] = key1(func(ctx context.Context, k string) (result, error) { return strsRes(c.SMembers(ctx, k).Result()) })
	table["srandmember"] = key1(func(ctx context.Context, k string) (result, error) { return strRes(c.SRandMember(ctx, k).Result()) })
	table["spop"] = key1(func(ctx context.Context, k string) (result, error) { return strRes(c.SPop(ctx, k).Result()) })
	table["sendCommand"] = func(a []sobek.Value) (func(context.Context) (result, error), error) {
		vs, err := values(a, 1)
		if err != nil {
			return nil, err
		}
		cmd := append([]any{key(a)}, vs...)
		return func(ctx context.Context) (result, error) { return anyRes(c.Do(ctx, cmd...).Result()) }, nil
	}
}

// arg is a[i], undefined past the end.
func arg(a []sobek.Value, i int) sobek.Value {
	if i < len(a) {
		return a[i]
	}
	return sobek.Undefined()
}

// key is the first argument as a string.
func key(a []sobek.Value) string { return arg(a, 0).String() }

// value is a[i] as a command argument: a string, a number or a boolean, as k6 takes
// them; other types are refused.
func value(a []sobek.Value, i int) (any, error) {
	v := arg(a, i)
	switch x := v.Export().(type) {
	case string, bool:
		return x, nil
	case int64:
		return x, nil
	case float64:
		if x == math.Trunc(x) && math.Abs(x) < 1<<53 {
			return int64(x), nil
		}
		return x, nil
	default:
		return nil, fmt.Errorf("argument %d: expected a string, a number or a boolean, got %s", i+1, v.String())
	}
}

// values are the arguments from i on, arrays spread (del(['a', 'b']) and del('a', 'b')).
func values(a []sobek.Value, i int) ([]any, error) {
	var out []any
	for j := i; j < len(a); j++ {
		if arr, ok := a[j].Export().([]any); ok {
			out = append(out, arr...)
			continue
		}
		v, err := value(a, j)
		if err != nil {
			return nil, err
		}
		out = append(out, v)
	}
	return out, nil
}

// stringArgs are the arguments from i on as strings, arrays spread.
func stringArgs(a []sobek.Value, i int) []string {
	var out []string
	for j := i; j < len(a); j++ {
		if arr, ok := a[j].Export().([]any); ok {
			for _, x := range arr {
				out = append(out, fmt.Sprint(x))
			}
			continue
		}
		out = append(out, a[j].String())
	}
	return out
}

// Argument shapes.

func key1(f func(context.Context, string) (result, error)) method {
	return func(a []sobek.Value) (func(context.Context) (result, error), error) {
		k := key(a)
		return func(ctx context.Context) (result, error) { return f(ctx, k) }, nil
	}
}

func keyInt(f func(context.Context, string, int64) (result, error)) method {
	return func(a []sobek.Value) (func(context.Context) (result, error), error) {
		k, n := key(a), arg(a, 1).ToInteger()
		return func(ctx context.Context) (result, error) { return f(ctx, k, n) }, nil
	}
}

func keyValue(f func(context.Context, string, any) (result, error)) method {
	return func(a []sobek.Value) (func(context.Context) (result, error), error) {
		k := key(a)
		v, err := value(a, 1)
		return func(ctx context.Context) (result, error) { return f(ctx, k, v) }, err
	}
}

func keyValues(f func(context.Context, string, []any) (result, error)) method {
	return func(a []sobek.Value) (func(context.Context) (result, error), error) {
		k := key(a)
		vs, err := values(a, 1)
		return func(ctx context.Context) (result, error) { return f(ctx, k, vs) }, err
	}
}

func keys(f func(context.Context, []string) (result, error)) method {
	return func(a []sobek.Value) (func(context.Context) (result, error), error) {
		ks := stringArgs(a, 0)
		return func(ctx context.Context) (result, error) { return f(ctx, ks) }, nil
	}
}

// Replies.

func str(f func(context.Context) (string, error)) func(context.Context) (result, error) {
	return func(ctx context.Context) (result, error) { return strRes(f(ctx)) }
}

func strRes(s string, err error) (result, error) {
	return func(rt *sobek.Runtime) sobek.Value { return rt.ToValue(s) }, err
}

func intRes(n int64, err error) (result, error) {
	return func(rt *sobek.Runtime) sobek.Value { return rt.ToValue(n) }, err
}

func boolRes(b bool, err error) (result, error) {
	return func(rt *sobek.Runtime) sobek.Value { return rt.ToValue(b) }, err
}

func strsRes(ss []string, err error) (result, error) {
	return func(rt *sobek.Runtime) sobek.Value {
		vals := make([]any, len(ss))
		for i, s := range ss {
			vals[i] = s
		}
		return rt.NewArray(vals...)
	}, err
}

func mapRes(m map[string]string, err error) (result, error) {
	return func(rt *sobek.Runtime) sobek.Value {
		o := rt.NewObject()
		for k, v := range m {
			_ = o.Set(k, v) // a plain object takes any key
		}
		return o
	}, err
}

func anyRes(v any, err error) (result, error) {
	return func(rt *sobek.Runtime) sobek.Value { return toJS(rt, v) }, err
}

// toJS converts a Redis reply (RESP2 or RESP3) to JavaScript: strings, numbers,
// booleans, null, arrays and objects.
func toJS(rt *sobek.Runtime, v any) sobek.Value {
	switch x := v.(type) {
	case nil:
		return sobek.Null()
	case []any:
		vals := make([]any, len(x))
		for i, e := range x {
			vals[i] = toJS(rt, e)
		}
		return rt.NewArray(vals...)
	case map[any]any:
		o := rt.NewObject()
		for k, e := range x {
			_ = o.Set(fmt.Sprint(k), toJS(rt, e))
		}
		return o
	case map[string]any:
		o := rt.NewObject()
		for k, e := range x {
			_ = o.Set(k, toJS(rt, e))
		}
		return o
	default:
		return rt.ToValue(x)
	}
}
