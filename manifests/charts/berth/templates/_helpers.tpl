{{/* Labels every object carries: the raw manifests' own, plus Helm's. */}}
{{- define "berth.labels" -}}
app.kubernetes.io/name: {{ . }}
{{- end }}
{{- define "berth.helmLabels" -}}
helm.sh/chart: {{ printf "%s-%s" .Chart.Name .Chart.Version }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
app.kubernetes.io/instance: {{ .Release.Name }}
{{- end }}
{{- define "berth.image" -}}
{{ .Values.image.repository }}:{{ .Values.image.tag }}
{{- end }}
{{- define "berth.checkMode" -}}
{{- if not (has .Values.mode (list "secondScheduler" "replaceDefault" "extender")) }}
{{- fail (printf "mode %q: must be secondScheduler, replaceDefault or extender" .Values.mode) }}
{{- end }}
{{- end }}
