package runner

import (
	"fmt"
	"os"
	"strconv"
	"strings"
)

// Labels podjail puts on every container it creates.
const (
	// LabelInstance names the podjail process that owns the container:
	// "<boot id>/<pid>/<process start time in clock ticks>". The three
	// together never repeat, so a reused pid is not mistaken for the owner.
	LabelInstance = "io.podjail.instance"
	// LabelHost is the owner's hostname; a sweep only touches its own.
	LabelHost = "io.podjail.host"
	// LabelRole says what the container is for ("run").
	LabelRole = "io.podjail.role"
)

// Instance identifies one podjail process.
type Instance struct {
	BootID string
	PID    int
	Start  uint64
	Host   string
}

// Self identifies the calling process.
func Self() (Instance, error) {
	boot, err := os.ReadFile("/proc/sys/kernel/random/boot_id")
	if err != nil {
		return Instance{}, fmt.Errorf("read boot id: %w", err)
	}
	pid := os.Getpid()
	start, err := processStart(pid)
	if err != nil {
		return Instance{}, err
	}
	host, err := os.Hostname()
	if err != nil {
		return Instance{}, fmt.Errorf("read hostname: %w", err)
	}
	return Instance{BootID: strings.TrimSpace(string(boot)), PID: pid, Start: start, Host: host}, nil
}

// Labels are the labels of a container this instance owns.
func (i Instance) Labels(role string) map[string]string {
	return map[string]string{
		LabelInstance: fmt.Sprintf("%s/%d/%d", i.BootID, i.PID, i.Start),
		LabelHost:     i.Host,
		LabelRole:     role,
	}
}

// parseInstance reads LabelInstance and LabelHost back.
func parseInstance(labels map[string]string) (Instance, bool) {
	parts := strings.Split(labels[LabelInstance], "/")
	if len(parts) != 3 {
		return Instance{}, false
	}
	pid, err1 := strconv.Atoi(parts[1])
	start, err2 := strconv.ParseUint(parts[2], 10, 64)
	if err1 != nil || err2 != nil || parts[0] == "" {
		return Instance{}, false
	}
	return Instance{BootID: parts[0], PID: pid, Start: start, Host: labels[LabelHost]}, true
}

// processStart returns field 22 of /proc/PID/stat: the start time in clock
// ticks since boot.
func processStart(pid int) (uint64, error) {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0, err
	}
	// The command name (field 2) may hold spaces and parentheses; the
	// fields after it start past the last ')'.
	s := string(data)
	rest := strings.Fields(s[strings.LastIndexByte(s, ')')+1:])
	if len(rest) < 20 {
		return 0, fmt.Errorf("short /proc/%d/stat", pid)
	}
	return strconv.ParseUint(rest[19], 10, 64)
}

// processAlive reports whether pid is still the process that started at start.
func processAlive(pid int, start uint64) bool {
	got, err := processStart(pid)
	return err == nil && got == start
}

// orphaned reports whether a container with these labels belongs to a
// podjail instance of this host that is gone. Containers of other hosts,
// and ones whose labels do not parse, are never touched.
func orphaned(labels map[string]string, self Instance, alive func(pid int, start uint64) bool) bool {
	owner, ok := parseInstance(labels)
	if !ok || owner.Host != self.Host {
		return false
	}
	if owner == self {
		return false
	}
	if owner.BootID != self.BootID {
		return true
	}
	return !alive(owner.PID, owner.Start)
}
