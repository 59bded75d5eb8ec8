/**
 * Just enough of Kubernetes' protobuf encoding to read the access reviews kubectl's typed clients send as
 * `application/vnd.kubernetes.protobuf` (`kubectl auth can-i`). Answers go back as JSON, which those clients accept.
 */
const MAGIC = Buffer.from([0x6b, 0x38, 0x73, 0x00]); // "k8s\0"

type Fields = Map<number, Array<Buffer | number>>;

function readVarint(buf: Buffer, pos: number): [number, number] {
  let result = 0;
  let shift = 0;
  for (;;) {
    const b = buf[pos++];
    result += (b & 0x7f) * 2 ** shift;
    if ((b & 0x80) === 0) return [result, pos];
    shift += 7;
  }
}

function fields(buf: Buffer): Fields {
  const out: Fields = new Map();
  let pos = 0;
  while (pos < buf.length) {
    let key: number;
    [key, pos] = readVarint(buf, pos);
    const field = Math.floor(key / 8);
    const wire = key & 7;
    let value: Buffer | number;
    if (wire === 0) [value, pos] = readVarint(buf, pos);
    else if (wire === 2) {
      let len: number;
      [len, pos] = readVarint(buf, pos);
      value = buf.subarray(pos, pos + len);
      pos += len;
    } else if (wire === 1) {
      value = buf.subarray(pos, pos + 8);
      pos += 8;
    } else if (wire === 5) {
      value = buf.subarray(pos, pos + 4);
      pos += 4;
    } else throw new Error(`unsupported protobuf wire type ${wire}`);
    out.set(field, [...(out.get(field) ?? []), value]);
  }
  return out;
}

function str(f: Fields, n: number): string | undefined {
  const v = f.get(n)?.[0];
  return Buffer.isBuffer(v) ? v.toString('utf8') : undefined;
}

function msg(f: Fields, n: number): Fields | undefined {
  const v = f.get(n)?.[0];
  return Buffer.isBuffer(v) ? fields(v) : undefined;
}

function compact(o: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined));
}

export function isKubernetesProtobuf(contentType: string | undefined): boolean {
  return (contentType ?? '').split(';')[0].trim() === 'application/vnd.kubernetes.protobuf';
}

/** Decodes a (Self)SubjectAccessReview from the k8s protobuf envelope into its JSON shape. */
export function decodeAccessReview(body: Buffer): any {
  if (!body.subarray(0, 4).equals(MAGIC)) throw new Error('missing k8s protobuf magic');
  const unknown = fields(body.subarray(4));
  const typeMeta = msg(unknown, 1);
  const raw = unknown.get(2)?.[0];
  if (!Buffer.isBuffer(raw)) throw new Error('protobuf envelope without raw object');
  const review = fields(raw);
  const spec: Fields = msg(review, 2) ?? new Map();
  const ra = msg(spec, 1);
  const nra = msg(spec, 2);
  const out: any = {
    apiVersion: typeMeta ? str(typeMeta, 1) : undefined, kind: typeMeta ? str(typeMeta, 2) : undefined, spec: {},
  };
  if (ra) {
    out.spec.resourceAttributes = compact({
      namespace: str(ra, 1), verb: str(ra, 2), group: str(ra, 3), version: str(ra, 4), resource: str(ra, 5), subresource: str(ra, 6), name: str(ra, 7),
    });
  }
  if (nra) out.spec.nonResourceAttributes = compact({ path: str(nra, 1), verb: str(nra, 2) });
  // SubjectAccessReviewSpec: 3 user, 4 groups, 6 uid (resource/nonResource attributes are fields 1 and 2 as well)
  const user = str(spec, 3);
  if (user !== undefined) out.spec.user = user;
  const groups = (spec.get(4) ?? []).filter((b): b is Buffer => Buffer.isBuffer(b)).map((b) => b.toString('utf8'));
  if (groups.length) out.spec.groups = groups;
  return out;
}
