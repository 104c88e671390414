package layouts

import (
	"fmt"
	"io"
	"math"
	"time"
)

// Fixture is story 1 in one layout: its OpenMetrics text and its truth.
type Fixture struct {
	// Options are the options it was made with, defaults filled in.
	Options Options
	// Truth is the run's truth (the series with cluster=Options.Cluster, if any).
	Truth Truth
	// Decoy is the truth of the decoy copy (cluster=Options.DecoyCluster), nil without one:
	// a correlator that reports these values did not filter by cluster.
	Decoy *Truth

	om []byte
}

// Namespace returns the application's namespace.
func (f *Fixture) Namespace() string { return f.Options.Namespace }

// TestID returns the run's testid.
func (f *Fixture) TestID() string { return f.Options.TestID }

// OpenMetrics returns the fixture as OpenMetrics text ending in "# EOF", for `promtool tsdb
// create-blocks-from openmetrics`. Every sample has an explicit timestamp.
func (f *Fixture) OpenMetrics() string { return string(f.om) }

// WriteTo writes the OpenMetrics text to w.
func (f *Fixture) WriteTo(w io.Writer) (int64, error) {
	n, err := w.Write(f.om)
	if err != nil {
		return int64(n), fmt.Errorf("write fixture %s: %w", f.Options, err)
	}
	return int64(n), nil
}

// Story1 generates story 1's spike in the layout opts describes.
func Story1(opts Options) (*Fixture, error) {
	o, err := opts.withDefaults()
	if err != nil {
		return nil, fmt.Errorf("story 1 fixture: %w", err)
	}
	w := &omWriter{}
	prod := story{start: story1Start(), load: 1}
	f := &Fixture{Options: o}
	f.Truth = generate(w, o, prod, o.Cluster)
	if o.DecoyCluster != "" {
		decoy := story{start: prod.start, load: decoyLoad, shift: decoyShift, dbExtra: decoyDBExtra}
		t := generate(w, o, decoy, o.DecoyCluster)
		f.Decoy = &t
	}
	f.om = w.bytes()
	return f, nil
}

// generate writes one copy of the story and returns its truth.
func generate(w *omWriter, o Options, st story, cluster string) Truth {
	t := st.truth(o, cluster)
	t.Instances = writeK6(w, o, st, cluster)
	t.RunFrom, t.RunTo = t.Instances[0].From, t.Instances[0].To
	t.FirstSample, t.LastSample = t.Instances[0].FirstSample, t.Instances[0].LastSample
	for _, in := range t.Instances[1:] {
		t.RunFrom, t.RunTo = minTime(t.RunFrom, in.From), maxTime(t.RunTo, in.To)
		t.FirstSample, t.LastSample = minTime(t.FirstSample, in.FirstSample), maxTime(t.LastSample, in.LastSample)
	}
	sc := scraper{layout: o.Layout, rds: o.RDS, cluster: cluster}
	writeKSM(w, o, st, sc)
	writeRDS(w, o, st, sc)
	t.Connections = writeDB(w, o, st, sc)
	return t
}

func minTime(a, b time.Time) time.Time {
	if b.Before(a) {
		return b
	}
	return a
}

func maxTime(a, b time.Time) time.Time {
	if b.After(a) {
		return b
	}
	return a
}

// series is a sampled function over offsets: ok false skips the offset.
type series func(r float64) (float64, bool)

func always(v float64) series { return func(float64) (float64, bool) { return v, true } }

func fn(f func(float64) float64) series { return func(r float64) (float64, bool) { return f(r), true } }

// writeKSM writes kube-state-metrics' series (and cAdvisor's, which follow the same pods).
func writeKSM(w *omWriter, o Options, st story, sc scraper) {
	from, to := -float64(windowBefore), float64(windowAfter)
	full := o.Layout != Minimal
	ksmStep, cadStep := o.KSMInterval.Seconds(), o.CadvisorInterval.Seconds()
	ns := o.Namespace
	replicas, ready := stepFn(st.replicasPts()...), stepFn(st.readyPts()...)
	nodeOf := nodes()
	instances := ksmInstances(o.KSM)
	for _, k := range instances {
		j := sc.ksm(k, len(instances) > 1)
		add := func(name string, ls []label, f series) {
			if out, ok := j.apply(name, ls); ok {
				w.add(st, name, out, from, to, ksmStep, KSMOffset, f)
			}
		}
		hpaPrefix, hpaLabel := "kube_horizontalpodautoscaler_", "horizontalpodautoscaler"
		if k.v1 {
			hpaPrefix, hpaLabel = "kube_hpa_", "hpa"
		}
		hpa := lbl("namespace", ns, hpaLabel, hpaName)
		// KSM ≥ 2.19 sends an empty container label on both target metrics (§7): it blocks
		// the target label of that name under honor_labels.
		targetMetric := func(typ string) []label {
			ls := append(clone(hpa), lbl("metric_name", "cpu", "metric_target_type", typ)...)
			if full && !k.v1 {
				ls = append(ls, label{"container", ""})
			}
			return ls
		}
		if !k.v1 {
			add(hpaPrefix+"info", append(clone(hpa), lbl("scaletargetref_api_version", "apps/v1", "scaletargetref_kind", "Deployment", "scaletargetref_name", hpaName)...), always(1))
		}
		add(hpaPrefix+"status_current_replicas", hpa, fn(replicas))
		add(hpaPrefix+"status_desired_replicas", hpa, fn(replicas))
		add(hpaPrefix+"spec_min_replicas", hpa, always(2))
		add(hpaPrefix+"spec_max_replicas", hpa, always(5))
		add(hpaPrefix+"spec_target_metric", targetMetric("utilization"), always(hpaTargetPct))
		if !k.v1 {
			add(hpaPrefix+"status_target_metric", targetMetric("utilization"), fn(stepFn(st.utilizationPts()...)))
			add(hpaPrefix+"status_target_metric", targetMetric("average"), fn(stepFn(st.averagePts()...)))
		}
		for _, d := range []struct {
			name              string
			spec, readyReplic func(float64) float64
		}{
			{"order", replicas, ready},
			{"delivery", func(float64) float64 { return 2 }, func(float64) float64 { return 2 }},
		} {
			dl := lbl("namespace", ns, "deployment", d.name)
			add("kube_deployment_spec_replicas", dl, fn(d.spec))
			if !k.v1 {
				add("kube_deployment_status_replicas_ready", dl, fn(d.readyReplic))
			}
			if full {
				add("kube_deployment_status_replicas_available", dl, fn(d.readyReplic))
				add("kube_deployment_status_replicas_updated", dl, fn(d.spec))
			}
		}
		for _, rs := range [][2]string{{"order-7d9f", "order"}, {"delivery-5c4b", "delivery"}} {
			add("kube_replicaset_owner", lbl("namespace", ns, "replicaset", rs[0], "owner_kind", "Deployment", "owner_name", rs[1], "owner_is_controller", "true"), always(1))
		}
		for _, p := range st.pods() {
			pl := lbl("namespace", ns, "pod", p.name)
			if !k.v1 {
				pl = append(pl, label{"uid", "uid-" + p.name})
			}
			alive := func(f func(float64) float64) series {
				return func(r float64) (float64, bool) { return f(r), r >= p.created && r < p.deleted }
			}
			at := func(off float64) float64 { return float64(st.start.Add(time.Duration(off) * time.Second).Unix()) }
			add("kube_pod_owner", append(clone(pl), lbl("owner_kind", "ReplicaSet", "owner_name", p.rs, "owner_is_controller", "true")...), alive(func(float64) float64 { return 1 }))
			add("kube_pod_created", pl, alive(func(float64) float64 { return at(p.created) }))
			isReady := func(r float64) float64 {
				if r >= p.ready {
					return 1
				}
				return 0
			}
			add("kube_pod_status_ready", append(clone(pl), label{"condition", "true"}), alive(isReady))
			if full {
				add("kube_pod_status_ready", append(clone(pl), label{"condition", "false"}), alive(func(r float64) float64 { return 1 - isReady(r) }))
				add("kube_pod_status_ready", append(clone(pl), label{"condition", "unknown"}), alive(func(float64) float64 { return 0 }))
				node := nodeOf[p.node]
				add("kube_pod_info", append(clone(pl), lbl("host_ip", node.ip, "node", node.name, "created_by_kind", "ReplicaSet",
					"created_by_name", p.rs, "priority_class", "", "host_network", "false")...), alive(func(float64) float64 { return 1 }))
			}
			if !k.v1 {
				add("kube_pod_status_ready_time", pl, func(r float64) (float64, bool) { return at(p.ready), r >= p.ready && r < p.deleted })
			}
			node := "node-1"
			if full {
				node = p.node
			}
			cl := append(clone(pl), lbl("container", "app", "node", node)...)
			add("kube_pod_container_resource_requests", append(clone(cl), lbl("resource", "cpu", "unit", "core")...), alive(func(float64) float64 { return p.request }))
			if p.limit > 0 {
				add("kube_pod_container_resource_limits", append(clone(cl), lbl("resource", "cpu", "unit", "core")...), alive(func(float64) float64 { return p.limit }))
			}
			if k.v1 && len(instances) > 1 {
				continue // the cAdvisor series are written once, with the first instance
			}
			writeCadvisor(w, st, sc.cadvisor(nodeOf[p.node]), p, ns, full, from, to, cadStep)
		}
	}
}

func clone(ls []label) []label { return append([]label(nil), ls...) }

// writeCadvisor writes one pod's cAdvisor series: counters from the pod's creation (or the
// window start). Minimal has a docker/CRI-O sandbox row (container="POD"); other layouts
// are containerd's: a pause row with container="" and the pod-level cgroup row with
// container="" and image="", all to be filtered out by container!="", container!="POD".
func writeCadvisor(w *omWriter, st story, j *job, p pod, ns string, full bool, from, to, step float64) {
	start := math.Max(p.created, from)
	add := func(name string, ls []label, f func(float64) float64) {
		out, ok := j.apply(name, ls)
		if !ok {
			return
		}
		c := Cumulative(f, start)
		w.add(st, name, out, from, to, step, CadvisorOffset, func(r float64) (float64, bool) {
			return c(r), r >= p.created && r < p.deleted
		})
	}
	gauge := func(name string, ls []label, v float64) {
		if out, ok := j.apply(name, ls); ok {
			w.add(st, name, out, from, to, step, CadvisorOffset, func(r float64) (float64, bool) { return v, r >= p.created && r < p.deleted })
		}
	}
	usage := stepFn(st.usagePts()...)
	throttled := stepFn(st.throttledPts()...)
	if p.limit == 0 {
		usage = func(float64) float64 { return 0.01 }
	}
	periods := func(float64) float64 { return 10 } // 100 ms CFS periods
	throttledPeriods := func(r float64) float64 { return 10 * throttled(r) }

	if !full {
		app := lbl("namespace", ns, "pod", p.name, "container", "app", "image", "app:1", "id", fmt.Sprintf("/kubepods/%s/app", p.name))
		add("container_cpu_usage_seconds_total", append(clone(app), label{"cpu", "total"}), usage)
		if p.limit == 0 { // delivery: no CPU limit, so no CFS series at all
			return
		}
		add("container_cpu_cfs_periods_total", app, periods)
		add("container_cpu_cfs_throttled_periods_total", app, throttledPeriods)
		sandbox := lbl("namespace", ns, "pod", p.name, "container", "POD", "image", "pause:3.9", "id", fmt.Sprintf("/kubepods/%s/pause", p.name))
		add("container_cpu_usage_seconds_total", append(clone(sandbox), label{"cpu", "total"}), func(float64) float64 { return 5 })
		add("container_cpu_cfs_throttled_periods_total", sandbox, func(float64) float64 { return 10 })
		add("container_cpu_cfs_periods_total", sandbox, func(float64) float64 { return 10 })
		return
	}

	podSlice := fmt.Sprintf("/kubepods.slice/kubepods-burstable.slice/kubepods-burstable-pod%s.slice", p.name)
	row := func(container, image, id, name string) []label {
		return lbl("container", container, "id", id, "image", image, "name", name, "namespace", ns, "pod", p.name)
	}
	app := row("app", "registry.example.com/shoong/"+p.deployment+":1.42.0", podSlice+"/cri-containerd-app"+p.name+".scope", "app"+p.name)
	pause := row("", "registry.k8s.io/pause:3.9", podSlice+"/cri-containerd-pause"+p.name+".scope", "pause"+p.name)
	podRow := row("", "", podSlice, "")
	add("container_cpu_usage_seconds_total", append(clone(app), label{"cpu", "total"}), usage)
	add("container_cpu_usage_seconds_total", append(clone(pause), label{"cpu", "total"}), func(float64) float64 { return 0.0001 })
	add("container_cpu_usage_seconds_total", append(clone(podRow), label{"cpu", "total"}), func(r float64) float64 { return usage(r) + 0.0001 })
	if p.limit == 0 {
		return
	}
	for _, ls := range [][]label{app, podRow} {
		add("container_cpu_cfs_periods_total", ls, periods)
		add("container_cpu_cfs_throttled_periods_total", ls, throttledPeriods)
		// Throttled time: a throttled 100 ms period waits 50 ms on average here.
		add("container_cpu_cfs_throttled_seconds_total", ls, func(r float64) float64 { return 0.05 * throttledPeriods(r) })
		gauge("container_spec_cpu_period", ls, 100000)
		gauge("container_spec_cpu_quota", ls, p.limit*100000)
	}
}

// writeRDS writes the RDS instance's CloudWatch series (instance <namespace>-db), on CloudWatch minutes.
func writeRDS(w *omWriter, o Options, st story, sc scraper) {
	from, to := -float64(windowBefore), float64(windowAfter)
	j := sc.rdsJob()
	out, ok := j.apply("aws_rds_cpuutilization_average", sc.rdsLabels(o.Namespace+"-db"))
	if !ok {
		return
	}
	add := func(name string, f func(float64) float64) {
		// CloudWatch minutes fall 2 s before the k6 grid (the run starts at :02).
		w.add(st, name, out, from, to, RDSStep, -2, func(r float64) (float64, bool) { return f(r), r >= from })
	}
	add("aws_rds_cpuutilization_average", stepFn(st.dbCPUPts()...))
	add("aws_rds_database_connections_average", stepFn(st.dbConnPts()...))
	add("aws_rds_cpucredit_balance_average", st.credit)
	add("aws_rds_freeable_memory_average", st.freeable)
}
