import {
  base64Error,
  embeddedChain,
  goStructOf,
  goTypeOf,
  goTypeOfRef,
  intOutOfRange,
  jsonKind,
  rfc3339Error,
  unmarshalTypeError,
} from './decoding-go';
import { RawSchema, refOf, VersionSchemas, versionSchemas } from './decoding-schemas';
import { Issue } from '../../apimachinery/issue';
import { KubernetesVersion, minorOf } from '../../apimachinery/kubernetes-versions';
import { Quantity } from '../../apimachinery/quantity';

const META = 'io.k8s.apimachinery.pkg.apis.meta.v1.';
const QUANTITY = 'io.k8s.apimachinery.pkg.api.resource.Quantity';
const INT_OR_STRING = 'io.k8s.apimachinery.pkg.util.intstr.IntOrString';
const TIME = `${META}Time`;
const MICRO_TIME = `${META}MicroTime`;

/**
 * What the apiserver's strict decoding refuses in a built-in object before any validation (unknown fields, values of
 * the wrong type). An object with such an error is refused with it alone.
 *
 * The apiserver decodes the JSON body into the kind's Go struct, then (fieldValidation=Strict, what kubectl apply
 * sends) looks for fields the struct lacks. Measured on 1.28, 1.32 and 1.36 (decoding-differential.test.ts), and
 * reported as it reports them:
 * - a value the custom decoders of quantities, int-or-strings and timestamps refuse stops the decoding: that error alone;
 * - else the first value of the wrong JSON type, in document order (Go's decoder keeps the first and goes on), and
 *   a byte field (Secret `data`) that is not padded base64 counts as one;
 * - else every unknown field, in document order (the server names them all in one message: one issue each here),
 *   including fields this version lacks that others have (`spec.trafficDistribution` on 1.28), named in the hint.
 * `null` is accepted anywhere. Maps (`labels`, `data`), `RawExtension` and the CRD's free-form JSON are not walked for
 * unknown keys. Kinds without a vendored schema (custom resources, kinds newer than 1.32) are not checked here.
 *
 * @internal
 */
export function decodingIssues(object: any, version: KubernetesVersion): Issue[] {
  if (typeof object?.apiVersion !== 'string' || typeof object?.kind !== 'string') return [];
  const schemas = versionSchemas(version);
  const root = schemas.kindSchema(object.apiVersion, object.kind);
  if (!root) return [];
  const d = new Decoder(schemas, minorOf(version));
  d.struct(object, root, { path: '', goPath: [] });
  if (d.aborted) return [d.aborted];
  if (d.saved) return [d.saved];
  return d.unknown;
}

/** Where a value is: its field path with list indices (ours), and Go's (JSON names, no indices). */
interface At {
  readonly path: string;
  readonly goPath: readonly string[];
  /** The Go struct holding the field (`ServicePort`). */
  readonly struct?: string;
}

class Decoder {
  public aborted?: Issue;
  public saved?: Issue;
  public readonly unknown: Issue[] = [];

  constructor(
    private readonly schemas: VersionSchemas,
    private readonly minor: number,
  ) {}

  /** A value against a property's schema (a `$ref`, an `allOf` of one, or an inline type). */
  public value(value: unknown, schema: RawSchema, at: At): void {
    if (this.aborted || value === null || value === undefined) return;
    const ref = refOf(schema);
    if (ref) return this.named(value, ref, at);
    switch (schema.type) {
      case 'array':
        if (!Array.isArray(value)) return this.save(value, at, goTypeOf(schema));
        if (schema.items) {
          value.forEach((item, i) => this.value(item, schema.items!, { ...at, path: `${at.path}[${i}]` }));
        }
        return;
      case 'object':
        if (typeof schema.additionalProperties !== 'object') return; // free-form (RawExtension-like)
        if (jsonKind(value) !== 'object') return this.save(value, at, goTypeOf(schema));
        for (const [key, item] of Object.entries(value as object)) {
          this.value(item, schema.additionalProperties, { ...at, path: `${at.path}[${key}]` });
        }
        return;
      case 'string':
        if (typeof value !== 'string') return this.save(value, at, goTypeOf(schema));
        if (schema.format === 'byte') {
          const error = base64Error(value);
          if (error) this.saved ??= { path: at.path, message: error, value };
        }
        return;
      case 'integer': {
        const bits = schema.format === 'int32' ? 32 : 64;
        if (typeof value !== 'number') return this.save(value, at, goTypeOf(schema));
        const out = intOutOfRange(value, bits);
        if (out) this.save(value, at, goTypeOf(schema), out);
        return;
      }
      case 'number':
        if (typeof value !== 'number') this.save(value, at, 'float64');
        return;
      case 'boolean':
        if (typeof value !== 'boolean') this.save(value, at, 'bool');
        return;
      default:
        return; // untyped: free-form JSON
    }
  }

  /** A struct's fields: each known one decoded, each unknown one recorded. */
  public struct(value: object, name: string, at: At): void {
    const struct = goStructOf(name);
    for (const [key, item] of Object.entries(value)) {
      const path = at.path ? `${at.path}.${key}` : key;
      const property = this.schemas.property(name, key);
      if (!property.known) {
        this.unknown.push({
          path,
          message: `strict decoding error: unknown field ${JSON.stringify(path)}`,
          ...(property.knownOn ? { hint: `a field this version does not have: ${property.knownOn}` } : {}),
        });
        continue;
      }
      const goPath = [...at.goPath, ...embeddedChain(name, key, this.minor), key];
      this.value(item, property.schema, { path, goPath, struct });
      if (this.aborted) return;
    }
  }

  /** A value of a named schema: the types with their own JSON decoding, structs, or a named scalar. */
  private named(value: unknown, ref: string, at: At): void {
    switch (ref) {
      case QUANTITY:
        return this.quantity(value, at);
      case INT_OR_STRING:
        // a string is the string; anything else is decoded as an int32, and its error stops the decoding
        if (typeof value === 'string') return;
        if (typeof value === 'number') {
          const out = intOutOfRange(value, 32);
          if (out) this.abort(value, at, 'int32', out);
          return;
        }
        return this.abort(value, at, 'int32');
      case TIME:
      case MICRO_TIME: {
        if (typeof value !== 'string') return this.abort(value, at, 'string');
        const error = rfc3339Error(value, ref === MICRO_TIME);
        if (error) this.aborted = { path: at.path, message: error, value };
        return;
      }
    }
    const schema = this.schemas.schema(ref);
    if (!schema) return;
    if (schema.properties) {
      if (jsonKind(value) !== 'object') return this.save(value, at, goTypeOfRef(ref));
      return this.struct(value as object, ref, at);
    }
    if (schema.type === 'object' && !schema.additionalProperties) return; // RawExtension, FieldsV1: any JSON
    this.value(value, schema, at);
  }

  /** `resource.Quantity`'s UnmarshalJSON: the text (quotes dropped, spaces trimmed) parsed, its error stops the decoding. */
  private quantity(value: unknown, at: At): void {
    const text = (typeof value === 'string' ? value : JSON.stringify(value)).trim();
    try {
      Quantity.parse(text);
    } catch (e) {
      this.aborted = { path: at.path, message: (e as Error).message, value };
    }
  }

  /** Go's decoder keeps the first value of the wrong type and decodes on. */
  private save(value: unknown, at: At, goType: string, what = jsonKind(value)): void {
    this.saved ??= {
      path: at.path,
      message: unmarshalTypeError(what, at.struct ?? '', at.goPath, goType),
      value,
    };
  }

  /** An error of a type's own JSON decoding ends the decoding. */
  private abort(value: unknown, at: At, goType: string, what = jsonKind(value)): void {
    this.aborted = { path: at.path, message: unmarshalTypeError(what, at.struct ?? '', at.goPath, goType), value };
  }
}
