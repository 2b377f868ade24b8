package bindings

import (
	"io"

	"github.com/hashicorp/go-hclog"
	"github.com/sirupsen/logrus"
)

// RouteLibraryLogs sends what Podman's bindings log (through logrus, to
// stderr by default) to log at debug level: podjail reports every failure
// that matters through its own errors, and a library's notes (an attach
// stream's stdin closed by an interactor that ended first) must not reach
// a judge's terminal as errors. It changes logrus's global logger, so a
// process calls it once, when it sets up.
func RouteLibraryLogs(log hclog.Logger) {
	logrus.SetOutput(io.Discard)
	logrus.SetLevel(logrus.DebugLevel)
	if !log.IsDebug() {
		logrus.SetLevel(logrus.WarnLevel) // nothing below would be shown anyway
	}
	logrus.StandardLogger().ReplaceHooks(logrus.LevelHooks{})
	logrus.AddHook(hook{log.Named("podman-bindings")})
}

type hook struct{ log hclog.Logger }

func (hook) Levels() []logrus.Level { return logrus.AllLevels }

func (h hook) Fire(e *logrus.Entry) error {
	args := make([]any, 0, 2*len(e.Data)+2)
	args = append(args, "logrus_level", e.Level.String())
	for k, v := range e.Data {
		args = append(args, k, v)
	}
	h.log.Debug(e.Message, args...)
	return nil
}
