package config

import (
	"errors"
	"testing"

	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

func TestArgsOf(t *testing.T) {
	defaults := func() (*GangArgs, error) { return &GangArgs{DefaultScheduleTimeoutSeconds: 60}, nil }
	positive := func(_ *field.Path, a *GangArgs) error {
		if a.DefaultScheduleTimeoutSeconds <= 0 {
			return errors.New("not positive")
		}
		return nil
	}
	for _, tc := range []struct {
		name    string
		obj     runtime.Object
		want    int64
		wantErr string
	}{
		{name: "nil takes the defaults", want: 60},
		{name: "given args", obj: &GangArgs{DefaultScheduleTimeoutSeconds: 5}, want: 5},
		{name: "invalid args", obj: &GangArgs{}, wantErr: "not positive"},
		{name: "another plugin's args", obj: &GPUShareArgs{}, wantErr: "want args to be of type GangArgs, got *config.GPUShareArgs"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := ArgsOf(tc.obj, defaults, positive)
			if tc.wantErr != "" {
				if err == nil || err.Error() != tc.wantErr {
					t.Fatalf("error %v, want %q", err, tc.wantErr)
				}
				return
			}
			if err != nil || got.DefaultScheduleTimeoutSeconds != tc.want {
				t.Fatalf("got %+v, %v; want timeout %d", got, err, tc.want)
			}
		})
	}
}
