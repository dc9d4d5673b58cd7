// Package process keeps what one scheduler process shares among its profiles: a device cache, a
// group table, a quota ledger, a profile's GPU resource names. The framework runs a plugin's
// factory once per profile; the first call builds the state and the others are handed it. It is
// dropped when the context it was built under (the scheduler's) ends, so that a process that
// builds schedulers again, as the tests do, does not keep every old one.
package process

import (
	"context"
	"sync"
)

// Shared holds one T per key, typically the scheduler's informer factory, which its profiles share
// and which tells schedulers apart. The zero value is ready to use.
type Shared[K comparable, T any] struct {
	// Release, if set, is called with a value once its context has ended.
	Release func(T)

	mu sync.Mutex
	m  map[K]T
}

// Get returns key's value, building it with build on the first call. build runs under the lock,
// so that profiles built at once share one value.
func (s *Shared[K, T]) Get(ctx context.Context, key K, build func() (T, error)) (T, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if v, ok := s.m[key]; ok {
		return v, nil
	}
	v, err := build()
	if err != nil {
		return v, err
	}
	if s.m == nil {
		s.m = map[K]T{}
	}
	s.m[key] = v
	context.AfterFunc(ctx, func() {
		s.mu.Lock()
		defer s.mu.Unlock()
		delete(s.m, key)
		if s.Release != nil {
			s.Release(v)
		}
	})
	return v, nil
}

// Lookup returns key's value, if one was built and its context has not ended.
func (s *Shared[K, T]) Lookup(key K) (T, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	v, ok := s.m[key]
	return v, ok
}
