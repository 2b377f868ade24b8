package shim

import (
	"encoding/base64"
	"fmt"
	"os"
	"strings"
)

// EnvListEnv carries the entries the program's environment adds to
// DefaultEnv. They travel in the shim's environment and never in its argv,
// for the nonce's reason: any local user reads a process's
// /proc/PID/cmdline, and only its own user its /proc/PID/environ.
const EnvListEnv = "PODJAIL_ENV"

// maxEnvString is the kernel's bound on one environment string, NAME=VALUE
// and its NUL (MAX_ARG_STRLEN, 32 pages): a longer one fails the exec.
const maxEnvString = 32 * 4096

// EncodeEnv is the value of EnvListEnv for entries, each NAME=VALUE as
// --env takes it: base64 of the entries joined by NUL bytes, which no
// entry holds. No entries is "". It refuses an entry --env would refuse,
// and a list too long for one environment string.
func EncodeEnv(entries []string) (string, error) {
	for _, kv := range entries {
		if err := checkEnvEntry(kv); err != nil {
			return "", err
		}
	}
	v := base64.StdEncoding.EncodeToString([]byte(strings.Join(entries, "\x00")))
	if n := len(EnvListEnv) + len("=") + len(v) + 1; n > maxEnvString {
		return "", fmt.Errorf("the program's environment takes %d bytes encoded, more than the %d one environment string may hold: pass large data in a file instead", n, maxEnvString)
	}
	return v, nil
}

// DecodeEnv undoes EncodeEnv; "" is no entries.
func DecodeEnv(v string) ([]string, error) {
	if v == "" {
		return nil, nil
	}
	raw, err := base64.StdEncoding.DecodeString(v)
	if err != nil {
		return nil, fmt.Errorf("%s is not base64: %w", EnvListEnv, err)
	}
	return strings.Split(string(raw), "\x00"), nil
}

// TakeEnv reads EnvListEnv's entries and erases the variable as TakeNonce
// erases the nonce, from the Go environment and from the original block.
// Its absence is no entries.
func TakeEnv() ([]string, error) {
	v := os.Getenv(EnvListEnv)
	os.Unsetenv(EnvListEnv)
	if err := scrubEnviron(EnvListEnv); err != nil {
		return nil, &SetupError{Step: StepNonce, Err: err}
	}
	entries, err := DecodeEnv(v)
	if err != nil {
		return nil, &SetupError{Step: StepArgs, Err: err}
	}
	return entries, nil
}

// checkEnvEntry refuses what cannot be one NAME=VALUE of the program's
// environment, and the names the shim keeps for itself.
func checkEnvEntry(kv string) error {
	name, _, ok := strings.Cut(kv, "=")
	if !ok || name == "" || strings.ContainsRune(kv, 0) {
		return fmt.Errorf("environment entry %q: want NAME=VALUE", kv)
	}
	if name == NonceEnv || name == EnvListEnv {
		return fmt.Errorf("environment entry %q: %s is the shim's own", kv, name)
	}
	return nil
}
