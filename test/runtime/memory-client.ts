/**
 * A small in-memory KubeClient for unit tests: stores objects, applies merge / JSON patches
 * (fast-json-patch, with `test` ops failing as 422 like the apiserver) and records every call.
 * Watches are not supported (suites that need them run on the real apiserver: test/envtest).
 */
import { applyPatch } from 'fast-json-patch';
import { KubeClient, ListResult, Patch, PatchOptions, WatchStream } from '../../runtime/client';
import { ApiError } from '../../runtime/errors';
import { KubeObject, objectKey, ResourceRef } from '../../runtime/resource';

export interface RecordedCall {
  readonly verb: 'get' | 'list' | 'create' | 'update' | 'patch' | 'delete';
  readonly kind: string;
  readonly key: string;
  readonly patchType?: Patch['type'];
  readonly subresource?: string;
  readonly body?: unknown;
}

function merge(target: any, patch: any): any {
  if (patch === null || typeof patch !== 'object' || Array.isArray(patch)) return patch;
  const out = target && typeof target === 'object' && !Array.isArray(target) ? { ...target } : {};
  for (const [k, v] of Object.entries(patch)) {
    if (v === null) delete out[k];
    else out[k] = merge(out[k], v);
  }
  return out;
}

export class MemoryClient implements KubeClient {
  public readonly calls: RecordedCall[] = [];
  private readonly objects = new Map<string, KubeObject>();
  private rv = 100;

  seed(obj: KubeObject): KubeObject {
    const stored = structuredClone({
      ...obj,
      metadata: {
        uid: `uid-${obj.metadata?.name}`,
        generation: 1,
        ...obj.metadata,
        resourceVersion: String(++this.rv),
      },
    });
    this.objects.set(this.id(obj.kind!, objectKey(obj)), stored);
    return structuredClone(stored);
  }

  stored(kind: string, key: string): KubeObject | undefined {
    return this.objects.get(this.id(kind, key));
  }

  writes(): RecordedCall[] {
    return this.calls.filter((c) => c.verb !== 'get' && c.verb !== 'list');
  }

  private id(kind: string, key: string) {
    return `${kind}:${key}`;
  }

  private notFound(kind: string, key: string): ApiError {
    return new ApiError(404, 'GET', `${kind}/${key}`, {
      reason: 'NotFound',
      code: 404,
      message: `${kind} "${key}" not found`,
    });
  }

  async list(ref: ResourceRef): Promise<ListResult> {
    this.calls.push({ verb: 'list', kind: ref.kind, key: '' });
    return {
      items: [...this.objects.entries()]
        .filter(([k]) => k.startsWith(`${ref.kind}:`))
        .map(([, o]) => structuredClone(o)),
      resourceVersion: String(this.rv),
    };
  }

  async watch(): Promise<WatchStream> {
    throw new Error('MemoryClient does not support watch');
  }

  async get(ref: ResourceRef, name: string, namespace?: string): Promise<KubeObject> {
    const key = objectKey({ namespace, name });
    this.calls.push({ verb: 'get', kind: ref.kind, key });
    const obj = this.objects.get(this.id(ref.kind, key));
    if (!obj) throw this.notFound(ref.kind, key);
    return structuredClone(obj);
  }

  async create(obj: KubeObject): Promise<KubeObject> {
    const key = objectKey(obj);
    this.calls.push({ verb: 'create', kind: obj.kind!, key, body: obj });
    if (this.objects.has(this.id(obj.kind!, key))) {
      throw new ApiError(409, 'POST', key, { reason: 'AlreadyExists', code: 409 });
    }
    return this.seed(obj);
  }

  async replace(obj: KubeObject): Promise<KubeObject> {
    return this.put(obj, undefined);
  }

  async replaceStatus(obj: KubeObject): Promise<KubeObject> {
    return this.put(obj, 'status');
  }

  private put(obj: KubeObject, subresource: string | undefined): KubeObject {
    const key = objectKey(obj);
    this.calls.push({ verb: 'update', kind: obj.kind!, key, subresource, body: obj });
    const current = this.objects.get(this.id(obj.kind!, key));
    if (!current) throw this.notFound(obj.kind!, key);
    if (obj.metadata?.resourceVersion !== current.metadata?.resourceVersion) {
      throw new ApiError(409, 'PUT', key, { reason: 'Conflict', code: 409 });
    }
    const next = subresource === 'status' ? { ...current, status: obj.status } : { ...obj, status: current.status };
    return this.seed(next);
  }

  async patch(
    ref: ResourceRef,
    name: string,
    namespace: string | undefined,
    patch: Patch,
    options: PatchOptions = {},
  ): Promise<KubeObject> {
    const key = objectKey({ namespace, name });
    this.calls.push({
      verb: 'patch',
      kind: ref.kind,
      key,
      patchType: patch.type,
      subresource: options.subresource,
      body: patch.type === 'json' ? patch.ops : patch.body,
    });
    const current = this.objects.get(this.id(ref.kind, key));
    if (patch.type === 'apply') return this.seed(current ? merge(current, patch.body) : patch.body);
    if (!current) throw this.notFound(ref.kind, key);
    if (patch.type === 'merge') return this.seed(merge(current, patch.body));
    try {
      return this.seed(
        applyPatch(structuredClone(current), structuredClone(patch.ops) as any, true, false).newDocument,
      );
    } catch (err) {
      throw new ApiError(422, 'PATCH', key, { reason: 'Invalid', code: 422, message: String((err as Error).message) });
    }
  }

  async delete(ref: ResourceRef, name: string, namespace?: string): Promise<void> {
    const key = objectKey({ namespace, name });
    this.calls.push({ verb: 'delete', kind: ref.kind, key });
    if (!this.objects.delete(this.id(ref.kind, key))) throw this.notFound(ref.kind, key);
  }
}
