package systemd

import (
	"errors"
	"testing"

	"github.com/godbus/dbus/v5"
)

func TestUnitErrors(t *testing.T) {
	exists := dbus.Error{Name: "org.freedesktop.systemd1.UnitExists", Body: []any{"Unit x.slice was already loaded or has a fragment file."}}
	noSuch := dbus.Error{Name: "org.freedesktop.systemd1.NoSuchUnit", Body: []any{"Unit x.slice not loaded."}}
	if !isUnitExists(exists) || isUnitExists(noSuch) || isUnitExists(nil) || isUnitExists(errors.New("other")) {
		t.Error("isUnitExists: want true for UnitExists only")
	}
	if !isNoSuchUnit(noSuch) || isNoSuchUnit(exists) || isNoSuchUnit(nil) {
		t.Error("isNoSuchUnit: want true for NoSuchUnit only")
	}
}
