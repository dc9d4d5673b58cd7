package process

import (
	"context"
	"errors"
	"testing"
	"time"
)

// TestShared: one value per key while its context lasts, built once; a failed build keeps
// nothing; the value is released and forgotten when its context ends.
func TestShared(t *testing.T) {
	released := make(chan int, 1)
	s := Shared[string, int]{Release: func(v int) { released <- v }}
	ctx, cancel := context.WithCancel(context.Background())
	builds := 0
	build := func() (int, error) { builds++; return 7, nil }
	if _, err := s.Get(ctx, "a", func() (int, error) { return 0, errors.New("no") }); err == nil {
		t.Fatal("a failed build returned no error")
	}
	for range 2 {
		if v, err := s.Get(ctx, "a", build); err != nil || v != 7 {
			t.Fatalf("Get = %v, %v; want 7", v, err)
		}
	}
	if builds != 1 {
		t.Errorf("built %d times, want once", builds)
	}
	if v, ok := s.Lookup("a"); !ok || v != 7 {
		t.Errorf("Lookup = %v, %v; want 7, true", v, ok)
	}
	cancel()
	select {
	case v := <-released:
		if v != 7 {
			t.Errorf("released %d, want 7", v)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("not released when its context ended")
	}
	if _, ok := s.Lookup("a"); ok {
		t.Error("kept after its context ended")
	}
}
