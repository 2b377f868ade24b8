package runnertest

import (
	"context"
	"testing"
	"time"

	"github.com/podjail/podjail/cgroupdrv"
)

func TestFakeCgroupFilesReadAsTheKernels(t *testing.T) {
	f := NewCgroups(t)
	p, err := f.Create(context.Background(), "podjail_1_2_abc")
	if err != nil {
		t.Fatal(err)
	}
	if err := ChargeCPU(p.Path, 1500*time.Millisecond); err != nil {
		t.Fatal(err)
	}
	if err := ChargeCPU(p.Path, 500*time.Millisecond); err != nil {
		t.Fatal(err)
	}
	if err := SetPeak(p.Path, 7<<20); err != nil {
		t.Fatal(err)
	}
	if err := SetOOMKill(p.Path); err != nil {
		t.Fatal(err)
	}
	if err := SetPressure(p.Path, 250*time.Millisecond); err != nil {
		t.Fatal(err)
	}
	c, err := cgroupdrv.Read(p.Path)
	if err != nil {
		t.Fatal(err)
	}
	if c.CPU != 2*time.Second || c.User+c.System != c.CPU || c.Peak != 7<<20 || c.OOMKill != 1 || c.OOM != 1 {
		t.Errorf("read %+v", c)
	}
	if w := cgroupdrv.CPUWaiting(p.Path); w != 250*time.Millisecond {
		t.Errorf("cpu.pressure some total read as %v", w)
	}
	if err := f.Destroy(context.Background(), p); err != nil {
		t.Fatal(err)
	}
	if left := f.Left(t); len(left) != 0 {
		t.Errorf("left %v", left)
	}
}
