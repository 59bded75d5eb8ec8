/** meta.k8s.io/v1 Table responses (what `kubectl get` asks for), incl. CRD additionalPrinterColumns. */
import { getJsonPath } from './json-util';
import { PrinterColumn, ResourceInfo } from './resources';

export function wantsTable(accept: string | undefined): boolean {
  return !!accept && /as=Table/.test(accept);
}

function columnsFor(res: ResourceInfo): PrinterColumn[] {
  if (res.printerColumns && res.printerColumns.length) return res.printerColumns;
  return [{ name: 'Age', type: 'date', jsonPath: '.metadata.creationTimestamp', description: 'CreationTimestamp is a timestamp representing the server time when this object was created.' }];
}

function cell(obj: any, col: PrinterColumn): any {
  const v = getJsonPath(obj, col.jsonPath);
  if (v === undefined || v === null) return null;
  if (col.type === 'date' && typeof v === 'string') return humanAge(v);
  if (col.type === 'integer' || col.type === 'number' || col.type === 'boolean') return v;
  return typeof v === 'string' ? v : JSON.stringify(v);
}

export function toTable(res: ResourceInfo, objects: any[], listMeta: Record<string, any>, includeObject: string | undefined): any {
  const cols = columnsFor(res);
  const columnDefinitions = [
    { name: 'Name', type: 'string', format: 'name', description: 'Name must be unique within a namespace. Is required when creating resources, although some resources may allow a client to request the generation of an appropriate name automatically. Name is primarily intended for creation idempotence and configuration definition. Cannot be updated. More info: https://kubernetes.io/docs/concepts/overview/working-with-objects/names#names', priority: 0 },
    ...cols.map((c) => ({ name: c.name, type: c.type, format: c.format ?? '', description: c.description ?? '', priority: c.priority ?? 0 })),
  ];
  const rows = objects.map((o) => {
    const row: any = { cells: [o.metadata.name, ...cols.map((c) => cell(o, c))] };
    if (includeObject === 'Object') row.object = o;
    else if (includeObject !== 'None') row.object = { kind: 'PartialObjectMetadata', apiVersion: 'meta.k8s.io/v1', metadata: o.metadata };
    return row;
  });
  return { kind: 'Table', apiVersion: 'meta.k8s.io/v1', metadata: listMeta, columnDefinitions, rows };
}

/** apimachinery's duration.HumanDuration of now - timestamp, as the apiserver renders `date` columns. */
export function humanAge(timestamp: string, now = Date.now()): string {
  const ms = now - Date.parse(timestamp);
  if (Number.isNaN(ms)) return '<unknown>';
  if (ms < -1000) return '<invalid>';
  const s = Math.max(0, Math.floor(ms / 1000));
  const m = Math.floor(s / 60);
  const h = Math.floor(m / 60);
  const d = Math.floor(h / 24);
  const y = Math.floor(d / 365);
  if (s < 120) return `${s}s`;
  if (m < 10) return s % 60 === 0 ? `${m}m` : `${m}m${s % 60}s`;
  if (m < 180) return `${m}m`;
  if (h < 8) return m % 60 === 0 ? `${h}h` : `${h}h${m % 60}m`;
  if (h < 48) return `${h}h`;
  if (h < 24 * 8) return h % 24 === 0 ? `${d}d` : `${d}d${h % 24}h`;
  if (h < 24 * 365 * 2) return `${d}d`;
  if (h < 24 * 365 * 8) return d % 365 === 0 ? `${y}y` : `${y}y${d % 365}d`;
  return `${y}y`;
}
