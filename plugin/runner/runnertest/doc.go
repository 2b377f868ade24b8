// Package runnertest holds the fakes the tests of plugin/runner and plugin
// run on, as net/http/httptest holds an HTTP server's: a bindings.Runtime
// whose containers play the shim's protocol (Runtime, with what each
// container does given as a Program), and a cgroupdrv.Driver whose parents
// are directories of a test's TempDir holding the kernel's files (Cgroups).
//
// It is for tests only: no production package imports it. Nothing runs
// when it is imported.
package runnertest
