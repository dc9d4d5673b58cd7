package config

import (
	"fmt"
	"reflect"

	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// ArgsOf is what a plugin's New makes of the args the framework hands it: obj as *T, or, when obj
// is nil (a profile without a pluginConfig entry for the plugin), what defaults gives; validated
// either way, so a plugin runs only on args its validator accepts. A wrong type is a configuration
// that gave the plugin another plugin's args.
func ArgsOf[T any](obj runtime.Object, defaults func() (*T, error), validate func(*field.Path, *T) error) (*T, error) {
	var args *T
	if obj == nil {
		d, err := defaults()
		if err != nil {
			return nil, err
		}
		args = d
	} else {
		a, ok := any(obj).(*T)
		if !ok {
			return nil, fmt.Errorf("want args to be of type %s, got %T", reflect.TypeFor[T]().Name(), obj)
		}
		args = a
	}
	if err := validate(nil, args); err != nil {
		return nil, err
	}
	return args, nil
}
