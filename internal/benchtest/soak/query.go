package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"net/http"
	"net/url"
	"strconv"
	"time"
)

// querier runs PromQL queries over the soak's series without pause: instant and range
// queries of the kinds a dashboard sends.
type querier struct {
	base   string
	client *http.Client
	exprs  []string

	ok      int64
	failed  int64
	lastErr string
}

func newQuerier(c config, client *http.Client) *querier {
	sel := fmt.Sprintf(`soak_samples{run=%q}`, c.run)
	return &querier{base: c.url, client: client, exprs: []string{
		"sum by (writer) (rate(" + sel + "[1m]))",
		"count(" + sel + ")",
		"topk(5, " + sel + ")",
		"max_over_time(" + sel[:len(sel)-1] + `,series="1"}[5m])`,
		"quantile(0.95, delta(" + sel + "[1m]))",
	}}
}

func (q *querier) run(ctx context.Context) {
	for i := 0; ctx.Err() == nil; i++ {
		expr := q.exprs[i%len(q.exprs)]
		v := url.Values{"query": {expr}}
		path := "/api/v1/query"
		if i%2 == 1 {
			now := time.Now()
			path = "/api/v1/query_range"
			v.Set("start", strconv.FormatInt(now.Add(-5*time.Minute).Unix(), 10))
			v.Set("end", strconv.FormatInt(now.Unix(), 10))
			v.Set("step", "15")
		}
		_, err := promQuery(ctx, q.client, q.base+path, v)
		switch {
		case ctx.Err() != nil:
		case err != nil:
			q.failed++
			q.lastErr = fmt.Sprintf("%s: %v", expr, err)
		default:
			q.ok++
		}
	}
}

// promResponse is the part of a Prometheus API answer the soak reads.
type promResponse struct {
	Status string `json:"status"`
	Error  string `json:"error"`
	Data   struct {
		Result []struct {
			Value [2]json.RawMessage `json:"value"`
		} `json:"result"`
	} `json:"data"`
}

func promQuery(ctx context.Context, c *http.Client, u string, v url.Values) (*promResponse, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, u, nil)
	if err != nil {
		return nil, err
	}
	req.URL.RawQuery = v.Encode()
	resp, err := c.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(io.LimitReader(resp.Body, 16<<20))
	if err != nil {
		return nil, err
	}
	var pr promResponse
	if err := json.Unmarshal(b, &pr); err != nil || resp.StatusCode != http.StatusOK || pr.Status != "success" {
		return nil, fmt.Errorf("status %d: %.300s", resp.StatusCode, b)
	}
	return &pr, nil
}

// countStored counts, with PromQL, the soak's samples the server holds: per writer, so
// that one query loads at most one writer's samples.
func countStored(ctx context.Context, c config, client *http.Client, start time.Time) (int64, error) {
	end := time.Now()
	rng := int64(math.Ceil(end.Sub(start).Seconds())) + 60
	var total int64
	for w := range c.writers {
		expr := fmt.Sprintf(`sum(count_over_time(soak_samples{run=%q,writer="%d"}[%ds]))`, c.run, w, rng)
		v := url.Values{"query": {expr}, "time": {strconv.FormatFloat(float64(end.UnixMilli())/1000, 'f', 3, 64)}}
		pr, err := promQuery(ctx, client, c.url+"/api/v1/query", v)
		if err != nil {
			return 0, fmt.Errorf("count the stored samples: %w", err)
		}
		if len(pr.Data.Result) != 1 {
			continue // No sample of this writer.
		}
		var s string
		if err := json.Unmarshal(pr.Data.Result[0].Value[1], &s); err != nil {
			return 0, fmt.Errorf("count the stored samples: %w", err)
		}
		n, err := strconv.ParseFloat(s, 64)
		if err != nil {
			return 0, fmt.Errorf("count the stored samples: %w", err)
		}
		total += int64(n)
	}
	return total, nil
}
