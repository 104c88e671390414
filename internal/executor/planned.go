package executor

// PlannedVUs returns the VUs k6 initializes for the scenario before the test starts
// (its planned VUs): vus for the iteration executors and constant-vus, the largest
// ramping-vus stage target or startVUs, preAllocatedVUs for the arrival-rate
// executors, and maxVUs (as changed over the REST API) for externally-controlled, all
// scaled to the execution segment.
func (e *Executor) PlannedVUs() int64 {
	if e.ext != nil {
		e.ext.mu.Lock()
		defer e.ext.mu.Unlock()
		return e.ext.maxVUs
	}
	return e.nVUs
}
