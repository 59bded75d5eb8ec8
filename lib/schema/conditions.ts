import { Schema } from './schema';
import { JSONSchemaProps } from '../apiserver/schema/json-schema-props';

/**
 * Schema of `status.conditions` as `metav1.Condition` defines it: a list keyed by `type`
 * (`x-kubernetes-list-type: map`), so server-side apply merges conditions by type.
 * @see https://github.com/kubernetes/apimachinery/blob/master/pkg/apis/meta/v1/types.go (Condition)
 */
export function conditionsSchema(
  options: { readonly maxItems?: number; readonly description?: string } = {},
): JSONSchemaProps {
  return Schema.array(
    Schema.object({
      description: 'One aspect of the current state (metav1.Condition).',
      properties: {
        type: Schema.string({
          description: 'Type of condition in CamelCase, e.g. Ready.',
          maxLength: 316,
          pattern:
            '^([a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*/)?(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])$',
        }),
        status: Schema.string({ description: 'True, False or Unknown.', enum: ['True', 'False', 'Unknown'] }),
        observedGeneration: Schema.integer({
          description: 'The .metadata.generation the condition was set for.',
          format: 'int64',
          minimum: 0,
        }),
        lastTransitionTime: Schema.string({
          description: 'When the condition last changed from one status to another.',
          format: 'date-time',
        }),
        reason: Schema.string({
          description: 'Programmatic identifier of the last transition, in CamelCase.',
          maxLength: 1024,
          minLength: 1,
          pattern: '^[A-Za-z]([A-Za-z0-9_,:]*[A-Za-z0-9_])?$',
        }),
        message: Schema.string({ description: 'Human readable details of the last transition.', maxLength: 32768 }),
      },
      required: ['type', 'status', 'lastTransitionTime', 'reason', 'message'],
    }),
    {
      description: options.description ?? "Latest observations of the object's state, one entry per condition type.",
      listType: 'map',
      listMapKeys: ['type'],
      maxItems: options.maxItems ?? 16,
    },
  );
}
