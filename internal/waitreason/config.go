package waitreason

import (
	"errors"
	"fmt"
	"time"

	"github.com/spf13/pflag"
)

// Config bounds what the publisher does: how often it looks, how long a pod waits before it gets
// an answer, how many pods one sweep answers and how long an answer may be.
type Config struct {
	// Period is the time between sweeps.
	Period time.Duration
	// After is how long a pod waits (since its PodScheduled=False condition, or since it was
	// created if it has none) before it gets an answer. Most pods are placed, or told by the
	// scheduler's own condition, well within it; the answer is for those that stay.
	After time.Duration
	// MaxPods bounds the pods one sweep answers, oldest first: one sweep's cost is why.Of's per pod
	// (O(cluster), see the benchmark), so a backlog of thousands is answered over several sweeps.
	MaxPods int
	// MaxMessage bounds the condition's message and the event's note, in bytes.
	MaxMessage int
	// Disabled turns the publisher off.
	Disabled bool
}

// The defaults. The message bound leaves room for a cause's summary with its numbers and one
// thing that would unblock it; kubectl berth why has the rest.
const (
	DefaultPeriod     = 30 * time.Second
	DefaultAfter      = time.Minute
	DefaultMaxPods    = 50
	DefaultMaxMessage = 512
)

// DefaultConfig is the publisher as berth-scheduler runs it without flags.
func DefaultConfig() Config {
	return Config{Period: DefaultPeriod, After: DefaultAfter, MaxPods: DefaultMaxPods, MaxMessage: DefaultMaxMessage}
}

// Validate says what is wrong with c, naming the flag.
func (c Config) Validate() error {
	var errs []error
	if c.Period < 100*time.Millisecond {
		errs = append(errs, fmt.Errorf("--wait-reason-period: %v is below 100ms", c.Period))
	}
	if c.After < 0 {
		errs = append(errs, fmt.Errorf("--wait-reason-after: %v is negative", c.After))
	}
	if c.MaxPods < 1 {
		errs = append(errs, fmt.Errorf("--wait-reason-max-pods: %d is below 1", c.MaxPods))
	}
	// A message must hold at least a cause's first words; an event's note may not pass 1 KiB.
	if c.MaxMessage < 64 || c.MaxMessage > 1024 {
		errs = append(errs, fmt.Errorf("--wait-reason-max-message: %d is outside 64..1024", c.MaxMessage))
	}
	return errors.Join(errs...)
}

// AddFlags adds c's flags to fs, c's values their defaults.
func (c *Config) AddFlags(fs *pflag.FlagSet) {
	fs.DurationVar(&c.Period, "wait-reason-period", c.Period, "how often berth publishes why long-waiting pods wait (condition "+
		"berth.dev/WaitingFor and a WaitingFor event, written only when the answer changes)")
	fs.DurationVar(&c.After, "wait-reason-after", c.After, "how long a pod waits unscheduled before berth publishes why")
	fs.IntVar(&c.MaxPods, "wait-reason-max-pods", c.MaxPods, "the most pods answered per period, oldest first")
	fs.IntVar(&c.MaxMessage, "wait-reason-max-message", c.MaxMessage, "the longest published message, in bytes")
	fs.BoolVar(&c.Disabled, "wait-reason-disabled", c.Disabled, "publish no berth.dev/WaitingFor conditions or events")
}
