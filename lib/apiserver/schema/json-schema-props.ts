/**
 * One `x-kubernetes-validations` entry: a CEL rule evaluated by the apiserver.
 * @see https://kubernetes.io/docs/tasks/extend-kubernetes/custom-resources/custom-resource-definitions/#validation-rules
 */
export interface ValidationRule {
  readonly rule: string;
  readonly message?: string;
  readonly messageExpression?: string;
  /** FieldValueRequired | FieldValueForbidden | FieldValueInvalid | FieldValueDuplicate. @default FieldValueInvalid */
  readonly reason?: string;
  /** A JSONPath relative to the node holding the rule, e.g. `.spec.replicas`. */
  readonly fieldPath?: string;
  /** Whether a transition rule also runs on updates where the old value is absent (Kubernetes >= 1.28 alpha, 1.30 beta). */
  readonly optionalOldSelf?: boolean;
}

/**
 * `JSONSchemaProps` exactly as the apiextensions.k8s.io/v1 API spells it, so a schema
 * serializes to the YAML the apiserver reads.
 * @see https://kubernetes.io/docs/reference/kubernetes-api/extend-resources/custom-resource-definition-v1/#JSONSchemaProps
 */
export interface JSONSchemaProps {
  readonly type?: 'object' | 'array' | 'string' | 'integer' | 'number' | 'boolean' | string;
  readonly description?: string;
  readonly title?: string;
  readonly format?: string;
  readonly properties?: { readonly [name: string]: JSONSchemaProps };
  readonly required?: readonly string[];
  readonly items?: JSONSchemaProps;
  readonly additionalProperties?: JSONSchemaProps | boolean;
  readonly enum?: readonly unknown[];
  readonly default?: unknown;
  readonly example?: unknown;
  readonly nullable?: boolean;
  readonly pattern?: string;
  readonly minimum?: number;
  readonly maximum?: number;
  readonly exclusiveMinimum?: boolean;
  readonly exclusiveMaximum?: boolean;
  readonly multipleOf?: number;
  readonly minLength?: number;
  readonly maxLength?: number;
  readonly minItems?: number;
  readonly maxItems?: number;
  readonly minProperties?: number;
  readonly maxProperties?: number;
  readonly uniqueItems?: boolean;
  readonly allOf?: readonly JSONSchemaProps[];
  readonly anyOf?: readonly JSONSchemaProps[];
  readonly oneOf?: readonly JSONSchemaProps[];
  readonly not?: JSONSchemaProps;
  readonly 'x-kubernetes-int-or-string'?: boolean;
  readonly 'x-kubernetes-preserve-unknown-fields'?: boolean;
  readonly 'x-kubernetes-embedded-resource'?: boolean;
  readonly 'x-kubernetes-list-type'?: 'atomic' | 'set' | 'map' | string;
  readonly 'x-kubernetes-list-map-keys'?: readonly string[];
  readonly 'x-kubernetes-map-type'?: 'atomic' | 'granular' | string;
  readonly 'x-kubernetes-validations'?: readonly ValidationRule[];
  /** Anything else found in a raw schema (e.g. `$ref`) is kept so validation can reject it by name. */
  readonly [extra: string]: unknown;
}
