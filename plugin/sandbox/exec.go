package sandbox

// The server's Exec: one run of a caller's program, its stdin and stderr
// carried on the call's stream.

import (
	"errors"
	"fmt"
	"io"
	"maps"
	"os"
	"slices"

	"github.com/podjail/podjail/internal/capped"
	pb "github.com/podjail/podjail/plugin/sandbox/proto/podjail/v1"
)

func (s *Server) Exec(stream pb.Sandbox_ExecServer) error {
	ctx, done, err := s.beginCall(stream.Context(), "exec")
	if err != nil {
		return err
	}
	defer done()
	first, err := stream.Recv()
	if err != nil {
		return err
	}
	req := first.GetRequest()
	if req == nil {
		return s.fail("exec", invalid("exec: the first message must be the request"))
	}
	x, err := execRequestGo(req)
	if err == nil {
		x, err = s.guard.exec(x)
	}
	if err != nil {
		return s.fail("exec", err)
	}
	if x.InputPath != "" || len(x.Binds) > 0 || x.StderrPath != "" {
		if p, ok := mayNameHostPaths(ctx); !ok {
			return s.fail("exec", Mark(fmt.Errorf("exec: this service runs as uid %d and uses host paths with its rights; a caller of uid %d may not name them (an input file, bind mounts, a stderr file): send the input as stdin instead, call a service of your own user, or work in your own process (--service none)", os.Geteuid(), p.UID), ErrPermissionDenied))
		}
	}
	if req.GetStderr() == pb.StderrTo_STDERR_TO_CALLER {
		f, err := os.CreateTemp(s.dir, "stderr-")
		if err != nil {
			return s.fail("exec", err)
		}
		defer os.Remove(f.Name())
		// 0600: the shim opens it as the container's root, this process's
		// user (RunRequest.StderrFile).
		if err := errors.Join(f.Chmod(0o600), f.Close()); err != nil {
			return s.fail("exec", err)
		}
		x.StderrPath = f.Name()
	}
	switch req.GetStdin() {
	case pb.StdinFrom_STDIN_FROM_UPLOAD:
		path, err := s.receiveInput(stream)
		if err != nil {
			return s.fail("exec", err)
		}
		defer os.Remove(path)
		x.InputPath = path
	case pb.StdinFrom_STDIN_FROM_STREAM:
		pr, pw := io.Pipe()
		defer pr.Close()
		go func() { pw.CloseWithError(copyStdin(stream, pw)) }()
		x.Stdin = pr
	}
	// A caller that streams stdin may be waiting for the program's answer
	// before it sends more (a Communication task's pipes): its stdout goes
	// out as it comes, not in pieces of execChunk.
	out := &streamWriter{eager: req.GetStdin() == pb.StdinFrom_STDIN_FROM_STREAM, send: func(p []byte) error {
		return stream.Send(&pb.ExecEvent{Event: &pb.ExecEvent_Stdout{Stdout: p}})
	}}
	res, err := s.engine.Exec(ctx, x, out)
	if err != nil {
		return s.fail("exec", err)
	}
	if req.GetStdin() == pb.StdinFrom_STDIN_FROM_UPLOAD {
		_ = os.Remove(x.InputPath) // the run is over: nothing more reads it
	}
	if err := out.flush(); err != nil {
		return err
	}
	if req.GetStderr() == pb.StderrTo_STDERR_TO_CALLER {
		if err := sendStderr(stream, x.StderrPath); err != nil {
			return err
		}
		// Gone before the result goes out: a caller that has its result
		// finds nothing of its run left in the server's directory.
		if err := os.Remove(x.StderrPath); err != nil {
			return s.fail("exec", err)
		}
	}
	if err := sendFiles(stream, res.Files); err != nil {
		return err
	}
	return stream.Send(&pb.ExecEvent{Event: &pb.ExecEvent_Result{Result: execResultPB(res)}})
}

// sendFiles sends the collected files, in name order, each in pieces of
// up to execChunk bytes, at least one.
func sendFiles(stream pb.Sandbox_ExecServer, files map[string][]byte) error {
	for _, name := range slices.Sorted(maps.Keys(files)) {
		data := files[name]
		for first := true; first || len(data) > 0; first = false {
			n := min(len(data), execChunk)
			if err := stream.Send(&pb.ExecEvent{Event: &pb.ExecEvent_File{File: &pb.File{Name: name, Data: data[:n]}}}); err != nil {
				return err
			}
			data = data[n:]
		}
	}
	return nil
}

// sendStderr sends the program's stderr, kept in the file at path, to the
// caller.
func sendStderr(stream pb.Sandbox_ExecServer, path string) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	errOut := &streamWriter{send: func(p []byte) error {
		return stream.Send(&pb.ExecEvent{Event: &pb.ExecEvent_Stderr{Stderr: p}})
	}}
	if _, err := io.Copy(errOut, f); err != nil {
		return err
	}
	return errOut.flush()
}

// copyStdin feeds the caller's stdin pieces to w until the caller closes
// its side; nil then.
func copyStdin(stream pb.Sandbox_ExecServer, w io.Writer) error {
	for {
		m, err := stream.Recv()
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return err
		}
		if _, err := w.Write(m.GetStdin()); err != nil {
			return err
		}
	}
}

// receiveInput writes the caller's whole stdin, at most maxUpload bytes,
// to a file the Podman service can mount, before the run.
func (s *Server) receiveInput(stream pb.Sandbox_ExecServer) (string, error) {
	f, err := os.CreateTemp(s.dir, "input-")
	if err != nil {
		return "", err
	}
	in := &capped.Writer{Dst: f, Limit: s.maxUpload, Refuse: true}
	err = copyStdin(stream, in)
	err = errors.Join(err, f.Close())
	switch {
	case in.Over():
		_ = os.Remove(f.Name())
		return "", invalid(fmt.Sprintf("exec: the input sent whole is over this service's %d bytes (--max-upload of podjail serve): stream it instead, or name it as a file to a service of your own user", s.maxUpload))
	case err != nil:
		_ = os.Remove(f.Name())
		return "", fmt.Errorf("exec: receiving the input: %w", err)
	}
	return f.Name(), nil
}

// streamWriter sends stdout in pieces of up to execChunk bytes, or each
// write as it comes when eager. A send that fails (the caller went away,
// which also ends the call's context) drops the rest rather than failing
// the run's writes.
type streamWriter struct {
	send  func([]byte) error
	eager bool
	buf   []byte
	err   error
}

// execChunk is the stdout carried by one event.
const execChunk = 64 << 10

func (w *streamWriter) Write(p []byte) (int, error) {
	n := len(p)
	for len(p) > 0 && w.err == nil {
		take := min(execChunk-len(w.buf), len(p))
		w.buf = append(w.buf, p[:take]...)
		p = p[take:]
		if len(w.buf) == execChunk || w.eager {
			_ = w.flush()
		}
	}
	return n, nil
}

func (w *streamWriter) flush() error {
	if len(w.buf) > 0 && w.err == nil {
		w.err = w.send(w.buf)
		w.buf = nil
	}
	return w.err
}
