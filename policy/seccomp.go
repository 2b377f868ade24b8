package policy

import (
	"encoding/json"
	"fmt"
	"slices"
	"syscall"

	"github.com/containers/common/pkg/seccomp"
)

// refusal is one podjail rule: syscalls answered with an errno instead of
// run, whatever the default profile allowed.
type refusal struct {
	names []string
	errno string
	code  syscall.Errno
	why   string // carried into the JSON as the rule's comment
}

// refusals are podjail's additions to containers/common's default profile.
var refusals = []refusal{
	{
		// The process-group lock (the design's seed judge had one): a process that moves
		// to a session or group of its own leaves the one a group kill
		// targets (a checker's or interactor's killpg, a tester's
		// killpg(getpgid(pid))) and can outlive its run. podjail's own
		// kills (the shim's kill(-1), cgroup.kill) reach it anyway; this is
		// the second cover. ENOSYS, as that lock answered: the call
		// looks absent, so a program falls back instead of retrying.
		// crun started the container's session before loading the filter,
		// so only the program is refused.
		names: []string{"setsid", "setpgid"},
		errno: "ENOSYS",
		code:  syscall.ENOSYS,
		why:   "podjail process-group lock: no process leaves the group and session a kill reaches",
	},
	{
		// Keyrings belong to the user namespace, not the container: every
		// run's 65534 shares one user keyring (the host's rootful, the
		// user's rootless), so a keyring a run links there outlives it and
		// a later run can read it (found by TestHostileKeyring). A judged
		// program has no use for keys.
		names: []string{"keyctl", "add_key", "request_key"},
		errno: "EPERM",
		code:  syscall.EPERM,
		why:   "podjail: keyrings outlive the run and are shared by every run's user",
	},
}

// Seccomp is the seccomp profile of every podjail container:
// containers/common's default profile with podjail's refusals, and the
// native ABI alone. It is built afresh on each call, so callers may change
// it.
func Seccomp() *seccomp.Seccomp {
	p := seccomp.DefaultProfile()
	for _, r := range refusals {
		refuse(p, r)
	}
	nativeOnly(p)
	return p
}

// refuse takes r's syscalls out of every rule of p, whatever its action,
// and appends r's errno rule. The removal is what refuses: libseccomp
// keeps the first unconditional rule of a syscall and silently drops later
// ones (src/db.c), so an appended refusal would lose to the default
// profile's allow; and crun drops a rule whose action equals the default
// action, ERRNO(ENOSYS) in the default profile, so the default answers. The explicit rule keeps the
// answer ENOSYS should the default action change (say, to a kill for RFE).
// containers/common's ValidateProfile rejects it for equalling the default;
// Podman's create path does not call that.
func refuse(p *seccomp.Seccomp, r refusal) {
	kept := p.Syscalls[:0]
	for _, s := range p.Syscalls {
		if slices.Contains(r.names, s.Name) {
			s.Name = ""
		}
		s.Names = slices.DeleteFunc(s.Names, func(n string) bool {
			return slices.Contains(r.names, n)
		})
		if s.Name != "" || len(s.Names) > 0 {
			kept = append(kept, s)
		}
	}
	code := uint(r.code)
	p.Syscalls = append(kept, &seccomp.Syscall{
		Names:    slices.Clone(r.names),
		Action:   seccomp.ActErrno,
		Errno:    r.errno,
		ErrnoRet: &code,
		Args:     []*seccomp.Arg{},
		Comment:  r.why,
	})
}

// nativeOnly empties every archMap entry's sub-architectures, so the
// filter lists the native ABI alone (amd64: SCMP_ARCH_X86_64, neither x86
// nor x32) and int 0x80 or an x32 number cannot reach a refused call under
// another number. Podman's loader copies only its native arch's entry into
// the OCI spec; crun adds those arches to a libseccomp context whose
// bad-arch action it leaves at libseccomp's default, SCMP_ACT_KILL (kill
// the thread). So a syscall of another ABI (AUDIT_ARCH_I386, or an x32
// number with bit 30 set, which libseccomp's x86_64 filter sends to the
// bad-arch action) kills the calling thread with SIGSYS: the whole process,
// with a core, when it was the last thread; that thread alone otherwise.
// Read in libseccomp (src/db.c, src/gen_bpf.c), crun
// (src/libcrun/seccomp.c) and kernel/seccomp.c.
func nativeOnly(p *seccomp.Seccomp) {
	p.Architectures = nil
	for i := range p.ArchMap {
		p.ArchMap[i].SubArches = []seccomp.Arch{}
	}
}

// SeccompJSON is Seccomp as the JSON Podman reads from
// seccomp_profile_path. Equal profiles give equal bytes: the profile has
// no maps, and encoding/json keeps struct and slice order.
func SeccompJSON() ([]byte, error) {
	b, err := json.MarshalIndent(Seccomp(), "", "\t")
	if err != nil {
		return nil, fmt.Errorf("encode seccomp profile: %w", err)
	}
	return append(b, '\n'), nil
}
