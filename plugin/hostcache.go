package plugin

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"os"
	"path/filepath"
	"time"

	"github.com/podjail/podjail/bindings"
)

// hostInfoTTL is how long a runner trusts what an earlier podjail process
// of this user learnt of the same Podman service. `podman info` costs
// about as much as a container's start under emulation, and the fronts
// start a process for every step (CMS's isolate calls, omegaUp's
// omegajail calls). What is kept (the cgroup manager, rootless, the
// versions) changes only when the service is reconfigured and restarted.
const hostInfoTTL = time.Minute

// hostCache keeps the service's host info in a file of dir, one per URL.
type hostCache struct {
	dir string
	now func() time.Time
}

func (c hostCache) path(url string) string {
	sum := sha256.Sum256([]byte(url))
	return filepath.Join(c.dir, "host-"+hex.EncodeToString(sum[:6])+".json")
}

// get returns the cached info for url if it is younger than hostInfoTTL,
// else asks fetch and keeps its answer. A cache that cannot be read or
// written is only slower.
func (c hostCache) get(ctx context.Context, url string, fetch func(context.Context) (bindings.HostInfo, error)) (bindings.HostInfo, error) {
	p := c.path(url)
	if fi, err := os.Stat(p); err == nil && c.now().Sub(fi.ModTime()) < hostInfoTTL && fi.ModTime().Before(c.now().Add(time.Second)) {
		var h bindings.HostInfo
		if data, err := os.ReadFile(p); err == nil && json.Unmarshal(data, &h) == nil && h.CgroupManager != "" {
			return h, nil
		}
	}
	h, err := fetch(ctx)
	if err != nil {
		return h, err
	}
	if data, err := json.Marshal(h); err == nil && os.MkdirAll(c.dir, 0o700) == nil {
		if f, err := os.CreateTemp(c.dir, ".host-*"); err == nil {
			_, werr := f.Write(data)
			if cerr := f.Close(); werr != nil || cerr != nil || os.Rename(f.Name(), p) != nil {
				_ = os.Remove(f.Name())
			}
		}
	}
	return h, nil
}
