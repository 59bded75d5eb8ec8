import { IConstruct } from 'constructs';

/**
 * Runs `fn`; an error it throws is rethrown prefixed with the construct path, the way cdk8s
 * reports validation errors (`[chart/operator] field: message`).
 *
 * @internal
 */
export function atPath<T>(scope: IConstruct, fn: () => T): T {
  try {
    return fn();
  } catch (e) {
    if (e instanceof Error && !e.message.startsWith('[')) e.message = `[${scope.node.path}] ${e.message}`;
    throw e;
  }
}

/** An error whose message starts with the construct path. @internal */
export function constructError(scope: IConstruct, message: string): Error {
  return new Error(`[${scope.node.path}] ${message}`);
}
