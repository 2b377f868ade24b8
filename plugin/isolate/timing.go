package isolate

import "time"

// WallCap bounds a run that isolate would let run for ever: one with no
// wall-clock limit (-w 0, or none given). It is the podjail service's
// default --max-wall; a service with a lower --max-wall refuses such a
// run, naming the flag.
const WallCap = 10 * time.Minute

// tick is the deadline of a limit that is not positive: isolate kills
// such a program at its timer's first look.
const tick = time.Millisecond

// CPUKill is the processor time at which isolate kills the program
// (check_timeout: past -t and past -x, -x counted from the program's
// start, not added to -t); 0 without -t. A limit that is not positive
// ("-t -1") kills it as soon as it has used any time. It is the limit
// itself, not a millisecond past it, so that a service's --max-time of 60 s
// takes CMS's --time=60: a run the ceiling stops is TO (isolateMeta) even
// when its figure is not a whole millisecond over.
func (c Command) CPUKill() time.Duration {
	if c.Time == 0 {
		return 0
	}
	return max(c.Time, c.ExtraTime, tick)
}

// WallKill is the elapsed time at which isolate kills the program
// (-w; -x does not apply to it), or WallCap without -w.
func (c Command) WallKill() time.Duration {
	if c.WallTime == 0 {
		return WallCap
	}
	return max(c.WallTime, tick)
}

// TimedOut applies box_keeper's checks after the program ended, before
// its exit status is looked at: processor time over -t first, then wall
// time over -w, each in whole milliseconds. over says either passed; wall
// says it was the wall clock.
func (c Command) TimedOut(cpu, wall time.Duration) (over, wallClock bool) {
	switch {
	case c.Time != 0 && cpu.Milliseconds() > c.Time.Milliseconds():
		return true, false
	case c.WallTime != 0 && wall.Milliseconds() > c.WallTime.Milliseconds():
		return true, true
	}
	return false, false
}
