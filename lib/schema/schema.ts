import { withSchemaProblems } from './schema-problems';
import { goRegexpError } from '../apiserver/schema/go-regexp';
import { JSONSchemaProps, ValidationRule } from '../apiserver/schema/json-schema-props';

/** Options every schema node accepts. */
export interface SchemaOptions {
  /** Shown by `kubectl explain` and in generated docs. @default - none */
  readonly description?: string;
  /** Title of the node. @default - none */
  readonly title?: string;
  /** Value the apiserver fills in when the field is absent (checked against the schema at synth). @default - none */
  readonly default?: unknown;
  /** Example value, documentation only. @default - none */
  readonly example?: unknown;
  /** Whether `null` is accepted (and kept) as a value. @default false */
  readonly nullable?: boolean;
  /**
   * CEL validation rules (`x-kubernetes-validations`).
   * @see https://kubernetes.io/docs/tasks/extend-kubernetes/custom-resources/custom-resource-definitions/#validation-rules
   * @default - none
   */
  readonly validations?: readonly ValidationRule[];
}

/** Options of `Schema.string()`. */
export interface StringSchemaOptions extends SchemaOptions {
  /** Allowed values. @default - any string */
  readonly enum?: readonly string[];
  /** RE2 regular expression the value must match. @default - none */
  readonly pattern?: string;
  /**
   * e.g. `date-time`, `email`, `uri`, `byte`, `duration` (the apiserver checks these), or `quantity` (the apiserver
   * does not: example resources are checked at synth; add the rule `isQuantity(self)` to have the cluster check it).
   * @default - none
   */
  readonly format?: string;
  /** @default - no lower bound */
  readonly minLength?: number;
  /** Also bounds the cost of CEL rules on the field. @default - no upper bound */
  readonly maxLength?: number;
}

/** Options of `Schema.integer()` and `Schema.number()`. */
export interface NumberSchemaOptions extends SchemaOptions {
  /** @default - no lower bound */
  readonly minimum?: number;
  /** @default - no upper bound */
  readonly maximum?: number;
  /** Whether `minimum` itself is excluded. @default false */
  readonly exclusiveMinimum?: boolean;
  /** Whether `maximum` itself is excluded. @default false */
  readonly exclusiveMaximum?: boolean;
  /** The value must be a multiple of this (> 0). @default - none */
  readonly multipleOf?: number;
  /** Allowed values. @default - any number */
  readonly enum?: readonly number[];
  /** `int32`/`int64` for integers, `float`/`double` for numbers. @default - none */
  readonly format?: string;
}

/** Options of `Schema.object()`. */
export interface ObjectSchemaOptions extends SchemaOptions {
  /** Declared fields. @default - none */
  readonly properties?: { readonly [name: string]: JSONSchemaProps };
  /** Names of fields that must be present (each must be declared in `properties`). @default - none */
  readonly required?: readonly string[];
  /** @default - no lower bound */
  readonly minProperties?: number;
  /** @default - no upper bound */
  readonly maxProperties?: number;
  /** `x-kubernetes-map-type`: `atomic` replaces the whole object on apply, `granular` merges fields. @default - granular */
  readonly mapType?: 'atomic' | 'granular';
  /** `x-kubernetes-preserve-unknown-fields`: keep fields not declared in `properties`. @default false */
  readonly preserveUnknownFields?: boolean;
}

/** Options of `Schema.array()`. */
export interface ArraySchemaOptions extends SchemaOptions {
  /** @default - no lower bound */
  readonly minItems?: number;
  /** Also bounds the cost of CEL rules iterating the list. @default - no upper bound */
  readonly maxItems?: number;
  /**
   * `x-kubernetes-list-type`: how server-side apply merges the list.
   * @see https://kubernetes.io/docs/reference/using-api/server-side-apply/#merge-strategy
   * @default - atomic, or map when `listMapKeys` is given
   */
  readonly listType?: 'atomic' | 'set' | 'map';
  /** `x-kubernetes-list-map-keys`: item fields identifying an entry of a `map` list. @default - none */
  readonly listMapKeys?: readonly string[];
}

/** Options of `Schema.map()`. */
export interface MapSchemaOptions extends SchemaOptions {
  /** @default - no lower bound */
  readonly minProperties?: number;
  /** Also bounds the cost of CEL rules iterating the map. @default - no upper bound */
  readonly maxProperties?: number;
  /** @default - granular */
  readonly mapType?: 'atomic' | 'granular';
}

/**
 * Builds CRD schema nodes (`JSONSchemaProps`, spelled as the apiextensions API spells them).
 * Each builder checks its own arguments and records what is wrong on the node it returns, invisibly (no key
 * appears in the output); the CustomResourceDefinition using the node reports it at synth, at the field's path,
 * with every other problem of the app (a builder cannot know its construct, and throwing would stop at the first).
 *
 * @example
 * Schema.object({
 *   properties: { replicas: Schema.integer({ minimum: 1, default: 1 }) },
 *   required: ['replicas'],
 * })
 */
export class Schema {
  /** A string. */
  public static string(options: StringSchemaOptions = {}): JSONSchemaProps {
    const problems: string[] = [];
    checkCount(problems, 'minLength', options.minLength);
    checkCount(problems, 'maxLength', options.maxLength);
    checkOrder(problems, 'minLength', options.minLength, 'maxLength', options.maxLength);
    checkEnum(problems, options.enum);
    const patternError = options.pattern === undefined ? undefined : goRegexpError(options.pattern);
    if (patternError) {
      problems.push(
        `'pattern' must be a valid RE2 regular expression, got ${JSON.stringify(options.pattern)}: ${patternError}`,
      );
    }
    return node(
      'string',
      options,
      {
        // a pattern reported here is left out, so the CRD checks do not report it a second time
        enum: options.enum,
        pattern: patternError ? undefined : options.pattern,
        format: options.format,
        minLength: options.minLength,
        maxLength: options.maxLength,
      },
      problems,
    );
  }

  /** An integer (`format: int32|int64` to bound it). */
  public static integer(options: NumberSchemaOptions = {}): JSONSchemaProps {
    return numeric('integer', options);
  }

  /** A number (integer or float). */
  public static number(options: NumberSchemaOptions = {}): JSONSchemaProps {
    return numeric('number', options);
  }

  /** `true` or `false`. */
  public static boolean(options: SchemaOptions = {}): JSONSchemaProps {
    return node('boolean', options, {}, []);
  }

  /** An object with declared fields. */
  public static object(options: ObjectSchemaOptions = {}): JSONSchemaProps {
    const problems: string[] = [];
    checkCount(problems, 'minProperties', options.minProperties);
    checkCount(problems, 'maxProperties', options.maxProperties);
    checkOrder(problems, 'minProperties', options.minProperties, 'maxProperties', options.maxProperties);
    for (const name of options.required ?? []) {
      if (!options.properties?.[name] && !options.preserveUnknownFields) {
        problems.push(`'required' names a field that 'properties' does not declare, got ${JSON.stringify(name)}`);
      }
    }
    if (options.required && new Set(options.required).size !== options.required.length) {
      problems.push(`'required' must not repeat a field, got ${JSON.stringify(options.required)}`);
    }
    return node(
      'object',
      options,
      {
        properties: options.properties,
        required: options.required && options.required.length > 0 ? options.required : undefined,
        minProperties: options.minProperties,
        maxProperties: options.maxProperties,
        'x-kubernetes-map-type': options.mapType,
        'x-kubernetes-preserve-unknown-fields': options.preserveUnknownFields ? true : undefined,
      },
      problems,
    );
  }

  /** A list of `items`. */
  public static array(items: JSONSchemaProps, options: ArraySchemaOptions = {}): JSONSchemaProps {
    const problems: string[] = [];
    checkCount(problems, 'minItems', options.minItems);
    checkCount(problems, 'maxItems', options.maxItems);
    checkOrder(problems, 'minItems', options.minItems, 'maxItems', options.maxItems);
    const keys = options.listMapKeys;
    const listType = options.listType ?? (keys ? 'map' : undefined);
    if (keys && listType !== 'map') {
      problems.push(`'listMapKeys' needs listType 'map', got ${JSON.stringify(listType)}`);
    }
    if (listType === 'map') {
      if (!keys || keys.length === 0) {
        problems.push(`listType 'map' needs non-empty 'listMapKeys', got ${JSON.stringify(keys ?? [])}`);
      }
      for (const k of keys ?? []) {
        const key = items.properties?.[k];
        if (!key) {
          problems.push(`'listMapKeys' must name properties of the items, got ${JSON.stringify(k)}`);
        } else if (!items.required?.includes(k) && key.default === undefined) {
          problems.push(`'listMapKeys' entries must be required or defaulted in the items, got ${JSON.stringify(k)}`);
        }
      }
    }
    return node(
      'array',
      options,
      {
        items,
        minItems: options.minItems,
        maxItems: options.maxItems,
        'x-kubernetes-list-type': listType,
        'x-kubernetes-list-map-keys': keys,
      },
      problems,
    );
  }

  /** A map from string keys to `values` (`additionalProperties`), e.g. labels. */
  public static map(values: JSONSchemaProps, options: MapSchemaOptions = {}): JSONSchemaProps {
    const problems: string[] = [];
    checkCount(problems, 'minProperties', options.minProperties);
    checkCount(problems, 'maxProperties', options.maxProperties);
    checkOrder(problems, 'minProperties', options.minProperties, 'maxProperties', options.maxProperties);
    return node(
      'object',
      options,
      {
        additionalProperties: values,
        minProperties: options.minProperties,
        maxProperties: options.maxProperties,
        'x-kubernetes-map-type': options.mapType,
      },
      problems,
    );
  }

  /** An integer or a string, like a port (`8080` or `http`) or a percentage (`25%`). */
  public static intOrString(options: SchemaOptions & { readonly pattern?: string } = {}): JSONSchemaProps {
    return node(
      undefined,
      options,
      {
        anyOf: [{ type: 'integer' }, { type: 'string' }],
        pattern: options.pattern,
        'x-kubernetes-int-or-string': true,
      },
      [],
    );
  }

  /** Any JSON object, kept as is (`x-kubernetes-preserve-unknown-fields`): use sparingly, nothing is validated. */
  public static preserveUnknown(options: SchemaOptions = {}): JSONSchemaProps {
    return node('object', options, { 'x-kubernetes-preserve-unknown-fields': true }, []);
  }

  /**
   * A whole Kubernetes object (apiVersion, kind, metadata), e.g. a pod template.
   * Without `properties` it keeps every field (`x-kubernetes-preserve-unknown-fields`).
   */
  public static embeddedResource(options: ObjectSchemaOptions = {}): JSONSchemaProps {
    const preserve = options.preserveUnknownFields ?? !options.properties;
    return {
      ...Schema.object({ ...options, preserveUnknownFields: preserve }),
      'x-kubernetes-embedded-resource': true,
    };
  }

  private constructor() {}
}

function numeric(type: 'integer' | 'number', options: NumberSchemaOptions): JSONSchemaProps {
  const problems: string[] = [];
  checkOrder(problems, 'minimum', options.minimum, 'maximum', options.maximum);
  if (options.multipleOf !== undefined && !(options.multipleOf > 0)) {
    problems.push(`'multipleOf' must be greater than 0, got ${options.multipleOf}`);
  }
  if (options.exclusiveMinimum && options.minimum === undefined) {
    problems.push("'exclusiveMinimum' needs 'minimum', got none");
  }
  if (options.exclusiveMaximum && options.maximum === undefined) {
    problems.push("'exclusiveMaximum' needs 'maximum', got none");
  }
  if (type === 'integer') {
    for (const [name, value] of [
      ['minimum', options.minimum],
      ['maximum', options.maximum],
    ] as const) {
      if (value !== undefined && !Number.isInteger(value)) {
        problems.push(`'${name}' of an integer must be an integer, got ${value}`);
      }
    }
  }
  checkEnum(problems, options.enum);
  return node(
    type,
    options,
    {
      minimum: options.minimum,
      maximum: options.maximum,
      exclusiveMinimum: options.exclusiveMinimum || undefined,
      exclusiveMaximum: options.exclusiveMaximum || undefined,
      multipleOf: options.multipleOf,
      enum: options.enum,
      format: options.format,
    },
    problems,
  );
}

/**
 * Assembles a node: common options first, then the type's own keys; undefined keys are dropped. The builder's
 * problems ride along invisibly (`withSchemaProblems`).
 */
function node(
  type: string | undefined,
  options: SchemaOptions,
  own: Record<string, unknown>,
  problems: readonly string[],
): JSONSchemaProps {
  const out: Record<string, unknown> = {
    type,
    description: options.description,
    title: options.title,
    default: options.default,
    example: options.example,
    nullable: options.nullable || undefined,
    ...own,
    'x-kubernetes-validations': options.validations && options.validations.length > 0 ? options.validations : undefined,
  };
  for (const k of Object.keys(out)) if (out[k] === undefined) delete out[k];
  return withSchemaProblems(out as JSONSchemaProps, problems);
}

function checkCount(problems: string[], name: string, value: number | undefined): void {
  if (value !== undefined && (!Number.isInteger(value) || value < 0)) {
    problems.push(`'${name}' must be a non-negative integer, got ${value}`);
  }
}

function checkOrder(
  problems: string[],
  minName: string,
  min: number | undefined,
  maxName: string,
  max: number | undefined,
): void {
  if (min !== undefined && max !== undefined && min > max) {
    problems.push(`'${minName}' must not exceed '${maxName}', got ${minName}=${min} > ${maxName}=${max}`);
  }
}

function checkEnum(problems: string[], values: readonly unknown[] | undefined): void {
  if (values === undefined) return;
  if (values.length === 0) problems.push("'enum' must list at least one value, got []");
  const seen = new Set(values.map((v) => JSON.stringify(v)));
  if (seen.size !== values.length) problems.push(`'enum' must not repeat a value, got ${JSON.stringify(values)}`);
}
