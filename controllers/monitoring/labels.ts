/** Upstream `sanitizeLabelName`: a Kubernetes label key as a Prometheus label name suffix (`app.kubernetes.io/name` → `app_kubernetes_io_name`). */
export function sanitizeLabelName(name: string): string {
  return name.replace(/[^a-zA-Z0-9_]/g, '_');
}
