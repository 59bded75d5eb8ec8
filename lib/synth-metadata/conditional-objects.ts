import { IConstruct } from 'constructs';

const KEY = 'cdk8s-operator:emit-where-served';

/**
 * Marks `scope`: its objects whose API an older version of the app's Kubernetes range does not serve are emitted into
 * their own file, applied only where the cluster serves them (`dist/N-requires-1.30.yaml`, see `dist/APPLY.md`),
 * instead of failing synth. For constructs the app can do without on older clusters (an extra admission policy).
 *
 * @internal
 */
export function emitWhereServed(scope: IConstruct): void {
  scope.node.addMetadata(KEY, true);
}

/**
 * Whether `c` or one of its scopes was marked by `emitWhereServed`.
 *
 * @internal
 */
export function isEmittedWhereServed(c: IConstruct): boolean {
  return c.node.scopes.some((s) => s.node.metadata.some((m) => m.type === KEY));
}
