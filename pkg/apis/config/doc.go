// +k8s:deepcopy-gen=package
// +groupName=kubescheduler.config.k8s.io

// Package config holds the internal types of berth's plugin arguments. They are registered into
// kube-scheduler's own config scheme, so pluginConfig entries in a KubeSchedulerConfiguration are
// decoded strictly, defaulted and converted exactly like the in-tree plugins' args.
package config
