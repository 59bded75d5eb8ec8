/**
 * The CRD conversion webhook's request handling, as pure functions: {@link conversionHandler} for the
 * runtime's webhook server (which frames the ConversionReview v1 exchange at `/convert`), and
 * {@link handleConversionReview}, a whole review in and out, for tests and other servers.
 *
 * Guarantees (as controller-runtime's `pkg/webhook/conversion`):
 * - The response echoes the request's `uid`; `convertedObjects` are in request order, each at
 *   `desiredAPIVersion`.
 * - Any failure (an unknown kind or version, a conversion that throws) fails the whole review with
 *   `result.status: Failure` and a message naming the object: the apiserver then fails the request
 *   that needed the conversion, it never stores a half-converted list.
 * - A malformed review (not a ConversionReview v1, no uid) is answered with a Failure too, never a throw.
 *
 * @see https://kubernetes.io/docs/tasks/extend-kubernetes/custom-resources/custom-resource-definition-versioning/#webhook-request-and-response
 */
import { isObject } from '../../lib/apimachinery/json';
import { KubeObject, parseApiVersion } from '../resource';
import { ConversionError, KindConversion } from './define-conversion';
import { ConversionHandler, ConversionRequest, ConversionReview } from '../webhook/conversion-review';

/**
 * The request's objects at its `desiredAPIVersion`, in order; throws a {@link ConversionError} naming the
 * first object that cannot be converted (the whole request fails, as it must).
 */
export function convertObjects(conversions: readonly KindConversion[], request: ConversionRequest): KubeObject[] {
  const group = parseApiVersion(request.desiredAPIVersion).group;
  return request.objects.map((obj, i) => {
    if (!isObject(obj)) throw new ConversionError(`request.objects[${i}]: not an object`);
    const conversion = conversions.find((c) => c.group === group && c.kind === obj.kind);
    if (!conversion) {
      throw new ConversionError(
        `request.objects[${i}]: this webhook converts ${conversions.map((c) => `${c.kind}.${c.group}`).join(', ') || 'nothing'}, not ${String(obj.kind)}.${group}`,
      );
    }
    return conversion.convert(obj, request.desiredAPIVersion);
  });
}

/** The handler to register on the runtime's webhook server: `manager.webhookServer.conversion(conversionHandler([...]))`. */
export function conversionHandler(conversions: readonly KindConversion[]): ConversionHandler {
  return (request) => ({
    uid: request.uid,
    convertedObjects: convertObjects(conversions, request),
    result: { status: 'Success' },
  });
}

/** Answers one whole review (the envelope included), for tests and for servers other than the runtime's. */
export function handleConversionReview(conversions: readonly KindConversion[], review: unknown): ConversionReview {
  const request = isObject(review) ? review.request : undefined;
  const uid = isObject(request) && typeof request.uid === 'string' ? request.uid : '';
  const fail = (message: string): ConversionReview => ({
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'ConversionReview',
    response: { uid, convertedObjects: [], result: { status: 'Failure', message } },
  });
  if (!isObject(review) || review.apiVersion !== 'apiextensions.k8s.io/v1' || review.kind !== 'ConversionReview') {
    return fail(
      `expected an apiextensions.k8s.io/v1 ConversionReview, got apiVersion ${JSON.stringify(isObject(review) ? review.apiVersion : undefined)}, kind ${JSON.stringify(isObject(review) ? review.kind : undefined)}`,
    );
  }
  if (!isObject(request) || !uid) return fail('request.uid: must be set');
  if (typeof request.desiredAPIVersion !== 'string' || !Array.isArray(request.objects)) {
    return fail('request.desiredAPIVersion and request.objects: must be set');
  }
  try {
    return {
      apiVersion: 'apiextensions.k8s.io/v1',
      kind: 'ConversionReview',
      response: {
        uid,
        convertedObjects: convertObjects(conversions, request as unknown as ConversionRequest),
        result: { status: 'Success' },
      },
    };
  } catch (e) {
    return fail((e as Error).message);
  }
}
