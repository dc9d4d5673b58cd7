package v1

// Defaults live here and nowhere else: the plugins read only defaulted, validated args.
const (
	DefaultMemoryResource               = "aliyun.com/gpu-mem"
	DefaultCountResource                = "aliyun.com/gpu-count"
	DefaultScoringStrategy              = "Binpack"
	DefaultScheduleTimeoutSeconds int64 = 60
)

// SetDefaults_GPUShareArgs fills the unset GPUShare args.
func SetDefaults_GPUShareArgs(obj *GPUShareArgs) {
	if obj.MemoryResource == nil {
		v := DefaultMemoryResource
		obj.MemoryResource = &v
	}
	if obj.CountResource == nil {
		v := DefaultCountResource
		obj.CountResource = &v
	}
	if obj.ScoringStrategy == nil {
		v := DefaultScoringStrategy
		obj.ScoringStrategy = &v
	}
}

// SetDefaults_GangArgs fills the unset Gang args.
func SetDefaults_GangArgs(obj *GangArgs) {
	if obj.DefaultScheduleTimeoutSeconds == nil {
		v := DefaultScheduleTimeoutSeconds
		obj.DefaultScheduleTimeoutSeconds = &v
	}
}
