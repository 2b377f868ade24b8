// Package shim is the entrypoint of every judged container (cmd/podjail-shim) and the
// runner's parser of what it reports (ParseReport). It imports only the standard
// library and golang.org/x/sys; build it static (CGO_ENABLED=0).
//
// # Contract with the runner
//
// The container: a private cgroup namespace with /sys/fs/cgroup mounted read-write
// (unmask=/sys/fs/cgroup), cgroup v2, Linux >= 5.19 (clone3 CLONE_INTO_CGROUP,
// cgroup.kill, memory.peak; pids.peak needs 6.1, else pids_peak is -1), the shim as
// pid 1 (no --init) running as root with exactly CAP_SETUID, CAP_SETGID and CAP_CHOWN kept
// (no-new-privileges is fine), a seccomp profile that allows clone3 (containers/common's
// default does; Docker's answers ENOSYS, which fails the start step) and seccomp(2), with
// no filter of its own holding a user-notification listener (step 7). Only amd64 is
// supported (elsewhere step 7 fails). The shim binary must be executable by 65534: the
// probe re-executes it as that user.
//
// Command line (argv[0] is ignored; flags also take --name=value):
//
//	podjail-shim --memory BYTES --pids N [--armed] [--control PATH] [--stdout PATH]
//	             [--status PATH] [--stdin PATH [--unpack]]
//	             [--stderr PATH | --stderr-to-stdout] [--env NAME=VALUE]...
//	             [--hand-back DIR]... [--tasks threads|none] -- PROGRAM [ARG...]
//
//	--memory  memory.max of the program's cgroup (memory.swap.max is always 0)
//	--armed   wait for the runner's go (step 6 below) before the program exists
//	--pids    pids.max of the program's cgroup (threads count)
//	--stdin   absolute path of the input file, opened by the shim as root and given to
//	          the program as fd 0; default /dev/null; "-" gives the program the
//	          shim's own stdin (the container's, fed through attach)
//	--unpack  the input file is a tar of plain files (Pack): after the go (step 6) the
//	          shim writes them, as root, into its working directory, which it makes mode
//	          0777 (files 0666, never through a link or over an existing one), and the
//	          program's stdin is /dev/null: a build's sources, put in without a copy into
//	          the container through Podman (step "unpack" on failure)
//	--stderr  absolute path of an existing file (the caller's, bind-mounted by the
//	          runner) opened for appending, not created, not through a symlink, and
//	          given to the program as fd 2; default /dev/null
//	--stderr-to-stdout  the program's fd 2 is its stdout (counted with it)
//	--env     adds to or replaces in the program's environment, after PODJAIL_ENV's
//	          entries (below); argv is world-readable, so nothing secret goes here:
//	          podjail's runner passes none and uses PODJAIL_ENV
//	--hand-back  absolute path of a directory (a writable mount) whose contents the
//	          shim makes its own after step 11 (uid and gid 0, links not followed,
//	          best effort, needs CAP_CHOWN): what the program made is the caller's
//	          then, as a box is after isolate's run (rootless: the user's, without a
//	          chown in the user's namespace); what it cannot read is left as it is
//	--tasks   which new tasks the program may make (step 7): "threads" kills it with
//	          SIGSYS for clone without CLONE_THREAD, fork and vfork; "none" for any
//	          clone, fork and vfork. Default: any (a judge's rule, as omegajail's
//	          language policies have one)
//	PROGRAM   absolute path, executed directly (no PATH search, no shell), in the shim's
//	          working directory
//
// Environment: PODJAIL_NONCE, 1-256 printable ASCII characters without spaces (use 32
// random hex digits). PODJAIL_ENV (optional): the NAME=VALUE entries the program's
// environment adds to DefaultEnv (PATH=/usr/local/bin:/usr/bin:/bin HOME=/tmp), in
// order, a later NAME replacing an earlier one, as --env does; EncodeEnv makes it
// (base64 of the entries joined by NUL bytes). The shim erases both from its Go
// environment and overwrites them in its original environment block (so
// /proc/1/environ no longer shows them) before doing anything else. Nothing else of
// the shim's environment reaches the program.
//
// What it does, in order (each failure names one Step):
//  1. nonce: takes and erases PODJAIL_NONCE and PODJAIL_ENV (a PODJAIL_ENV that is
//     not EncodeEnv's, or holds an entry --env would refuse, is step "args").
//  2. args, fds: parses argv; with --status PATH, first, opens the runner's status pipe
//     (a FIFO) for writing and makes it fd 2, its own stderr, so that everything below,
//     the armed line and the report among it, goes there (step "status" if it cannot,
//     reported on the container's stderr); with --control PATH, opens the runner's
//     control pipe for reading and makes it fd 0, with --stdout PATH its stdout pipe for
//     writing and makes it fd 1 (step "stdin", "stdout" if it cannot); marks every inherited
//     descriptor above 2 close-on-exec.
//  3. stdin: opens the input file.
//  4. cgroup: reads its cgroup from /proc/self/cgroup ("0::/PATH"), makes PATH/shim and
//     PATH/program, moves itself into shim/, writes "+memory +pids [+cpu]" to PATH's
//     cgroup.subtree_control (+cpu only if PATH offers it) and sets program/'s
//     memory.max, memory.swap.max=0, pids.max. program/ must not exist yet.
//  5. probe: re-executes /proc/self/exe with the single argument ProbeArg as 65534:65534
//     (setgroups none), in shim/; the probe checks /proc/self/status (all uids and gids
//     65534, no groups, CapEff, CapPrm, CapAmb zero) and that setresuid(0,0,0),
//     setuid(0), setresgid(0,0,0), setgid(0), setgroups([0]) fail with EPERM. Any other
//     answer refuses the run.
//  6. go (only with --armed): writes ArmedLine(nonce), "podjail-armed <nonce>\n", on
//     stderr, then reads exactly one byte from fd 0 with one read(2). GoByte ('g') goes
//     on; EOF or any other byte ends the shim with a report of step "go" and no program
//     ever started. fd 0 is the control pipe (the container's stdin, fed through
//     attach, without --control): for a run whose stdin is the input file it carries
//     only the go; for --stdin - the go is its first byte and the rest is the program's
//     stdin. podjail's runner always passes --control: the server of Podman's attach
//     takes ctrl-p ctrl-q on stdin for its detach keys, which no request turns off. The runner starts the program's clocks
//     (wall time, deadlines) when it sends the go, so a container can be created,
//     attached and started ahead of its turn ("armed") and still be used once.
//  7. nsfilter: on one OS thread of the shim, locked for the purpose and never
//     unlocked, sets no_new_privs and installs a seccomp filter with a listener
//     (SECCOMP_FILTER_FLAG_NEW_LISTENER, no TSYNC: the shim's other threads are
//     untouched) that answers, for x86_64 system calls: unshare with any CLONE_NEW*
//     flag, clone with any in its flags, and setns, EPERM; clone3, to the listener
//     (its flags are behind a pointer the filter cannot read); everything else
//     allowed (other architectures and x32 numbers are left to the container's
//     profile, which kills them). The program inherits the filter through step 8's
//     fork and exec. A goroutine answers the shim's own clone3 of step 8 (the one
//     from the locked thread) with SECCOMP_USER_NOTIF_FLAG_CONTINUE, once, then closes
//     the listener, after which the kernel answers every clone3 under the filter,
//     the program's and its descendants', with ENOSYS (libcs fall back to clone).
//     So the program can make no namespace, and threads and forks work as before.
//     Nothing is killed, unless --tasks asks it: then the filter also answers
//     SECCOMP_RET_KILL_PROCESS (the whole program ends by SIGSYS, and the kernel
//     logs the call as for any seccomp kill) for fork, vfork and clone without
//     CLONE_THREAD ("threads") or any clone ("none"). Such a rule needs the clone3
//     start of step 8 (the shim's fork by clone would be killed). If the filter cannot be installed, the program is not
//     started.
//  8. start: clone3 into program/ (CLONE_INTO_CGROUP) from the locked thread,
//     setgroups([]), setgid and setuid 65534, exec PROGRAM. fd 0 the input, fd 1 the
//     shim's stdout (the stdout pipe with --stdout), fd 2 /dev/null (or --stderr's file, or the stdout), nothing
//     else (the listener is close-on-exec). The shim's report never goes to the
//     program's fd 2: it is the shim's own stderr, which the program does not hold.
//  9. wait: wait4 until the program ends, keeping its rusage; orphans re-parented to
//     the shim (pid 1) are reaped as they end, since a zombie still holds a pid of
//     pids.max. SIGTERM, SIGINT or SIGHUP to the shim at any time kill program/
//     (cgroup.kill); the shim still reports.
//  10. reap: as pid 1, kill(-1, SIGKILL) with effective uid 65534 (the shim holds no
//     CAP_KILL; its real and saved uid stay 0), then cgroup.kill on program/, then reaps
//     every child until none is left (5 s at most). Nothing is alive to write after the
//     report.
//  11. measure: program/'s memory.peak, memory.events (oom, oom_kill), pids.peak, and
//     cpu.stat (usage, user, system): final now that every process of the program is
//     dead and reaped, it counts all of them, the children the program never waited
//     for too (whose time reaches no rusage), and nothing of the shim's; then rmdir
//     program/ (best effort).
//  12. hand back (with --hand-back): each directory's contents, the directories
//     taken before they are read, become uid and gid 0. Nothing of the program is
//     alive, so nothing moves meanwhile. Failures are not reported: the runner
//     checks the owners itself.
//
// Output: the program's stdout passes through untouched; the shim never writes to
// stdout. On stderr (the status pipe with --status) the shim writes exactly one line, last, with a single write, also
// when it fails (then without the figures it did not get):
//
//	podjail-report <nonce> {"time_us":…,"user_us":…,"sys_us":…,"cgroup_us":…,"cgroup_user_us":…,"cgroup_sys_us":…,"peak_bytes":…,"pids_peak":…,"exit_code":…,"signal":"…","oom":…,"oom_kill":…,"reaped":…[,"error":"…","step":"…"]}
//
// See Report for the fields. If the nonce was missing or malformed the line carries
// "-" in its place. ParseReport takes the last well-formed line with the right nonce
// and ignores everything else, so a forged line without the nonce is harmless. The
// figures are untrusted (the container held the submission): the runner charges the
// larger of the rusage and the program cgroup's usage, so neither can lower the other,
// floors it with its own cgroup reading, and decides MLE from its own memory.events.
//
// Exit status: the program's exit code, or 128+signal if a signal ended it; ExitFailure
// (125) when the shim itself failed, at any step, with error and step in the report.
// The report, not the status, is authoritative: a program may exit 125 itself.
package shim
