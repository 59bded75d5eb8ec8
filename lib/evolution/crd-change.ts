/** What kind of change one CRD made against its baseline. */
export enum CrdChangeKind {
  /** A version of the baseline is gone (clients using it get 404). Breaking. */
  VERSION_REMOVED = 'version-removed',
  /** A version the baseline stored objects in is gone: objects still stored in it can no longer be read. Breaking. */
  STORED_VERSION_REMOVED = 'stored-version-removed',
  /**
   * A served version is no longer served (or removed) while the baseline does not record that a storage
   * migration removed it from `status.storedVersions`. Breaking.
   */
  VERSION_UNSERVED = 'version-unserved',
  /** A version is no longer served or is removed after the baseline recorded it gone from `status.storedVersions`. */
  VERSION_RETIRED = 'version-retired',
  /** A new version. */
  VERSION_ADDED = 'version-added',
  /** A version is now marked deprecated. */
  VERSION_DEPRECATED = 'version-deprecated',
  /**
   * The storage version changed: existing objects stay in the old one until a storage migration rewrites
   * them (the old version must stay in `spec.versions` until then: see `stored-version-removed`).
   */
  STORAGE_VERSION_CHANGED = 'storage-version-changed',
  /** Namespaced ↔ Cluster. Breaking. */
  SCOPE_CHANGED = 'scope-changed',
  /** kind, plural, singular or listKind changed, or a short name or category removed. Breaking. */
  NAMES_CHANGED = 'names-changed',
  /** Conversion strategy changed away from Webhook: versions whose schemas differ are no longer converted. Breaking. */
  CONVERSION_CHANGED = 'conversion-changed',
  /** A conversion webhook now converts between versions (strategy None → Webhook). */
  CONVERSION_ADDED = 'conversion-added',
  /**
   * A new version differs from the baseline's storage version (a field removed, renamed or re-typed) and
   * there is no conversion webhook: strategy None only rewrites apiVersion, so those fields are lost. Breaking.
   */
  CONVERSION_MISSING = 'conversion-missing',
  /** A field differs between a new version and the baseline's storage version, and a conversion webhook converts it. */
  CONVERTED_CHANGE = 'converted-change',
  /** A field is gone: the apiserver prunes it from every request. Breaking. */
  FIELD_REMOVED = 'field-removed',
  /** A new optional field. */
  FIELD_ADDED = 'field-added',
  /** A field's type (or int-or-string, or embedded-resource) changed. Breaking. */
  TYPE_CHANGED = 'type-changed',
  /** A field became required and has no default: existing manifests without it are rejected. Breaking. */
  REQUIRED_ADDED = 'required-added',
  /** A field became required but has a default, so requests without it still pass. */
  REQUIRED_ADDED_WITH_DEFAULT = 'required-added-with-default',
  /** A field is no longer required. */
  REQUIRED_REMOVED = 'required-removed',
  /** Validation got stricter (bounds, pattern, format, enum values, nullable, uniqueness, unknown fields). Breaking. */
  VALIDATION_TIGHTENED = 'validation-tightened',
  /** Validation got looser. */
  VALIDATION_LOOSENED = 'validation-loosened',
  /** A new CEL rule (`x-kubernetes-validations`), or a rule's expression changed. Breaking. */
  RULE_ADDED = 'rule-added',
  /** A CEL rule is gone. */
  RULE_REMOVED = 'rule-removed',
  /** A default value was added, changed or removed (applied on read, so stored objects change too). */
  DEFAULT_CHANGED = 'default-changed',
  /** List type, list-map keys or map type changed: server-side apply merges differently. Breaking. */
  MERGE_STRATEGY_CHANGED = 'merge-strategy-changed',
  /** A subresource is gone, or `/status` appeared (writes of status through the main endpoint are then ignored). Breaking. */
  SUBRESOURCE_CHANGED = 'subresource-changed',
  /** A selectable field is gone (field selectors using it fail). Breaking. */
  SELECTABLE_FIELD_REMOVED = 'selectable-field-removed',
  /** Printer columns or selectable fields added or changed; only `kubectl get` output differs. */
  PRESENTATION_CHANGED = 'presentation-changed',
}

/** The kinds that break existing clients or stored objects. @internal */
export const BREAKING_CHANGE_KINDS: ReadonlySet<CrdChangeKind> = new Set([
  CrdChangeKind.VERSION_REMOVED,
  CrdChangeKind.STORED_VERSION_REMOVED,
  CrdChangeKind.VERSION_UNSERVED,
  CrdChangeKind.CONVERSION_MISSING,
  CrdChangeKind.SCOPE_CHANGED,
  CrdChangeKind.NAMES_CHANGED,
  CrdChangeKind.CONVERSION_CHANGED,
  CrdChangeKind.FIELD_REMOVED,
  CrdChangeKind.TYPE_CHANGED,
  CrdChangeKind.REQUIRED_ADDED,
  CrdChangeKind.VALIDATION_TIGHTENED,
  CrdChangeKind.RULE_ADDED,
  CrdChangeKind.MERGE_STRATEGY_CHANGED,
  CrdChangeKind.SUBRESOURCE_CHANGED,
  CrdChangeKind.SELECTABLE_FIELD_REMOVED,
]);

/** One difference between a CRD and its baseline. */
export interface CrdChange {
  readonly kind: CrdChangeKind;
  /** Whether it breaks existing clients or stored objects. */
  readonly breaking: boolean;
  /** The version it concerns, when it concerns one. */
  readonly version?: string;
  /**
   * Where, as a field path of the custom resource (`.spec.replicas`, `.spec.items[*].name`,
   * `.spec.labels[*]` for map values), or a CRD field (`scope`, `names.kind`, `subresources.status`).
   */
  readonly path: string;
  /** What changed, from → to. */
  readonly message: string;
  /**
   * Stable identifier to acknowledge the change by: `<kind> <version>:<path>`, or `<kind> <path>`
   * without a version, e.g. `field-removed v1:.spec.legacy`. Two changes of one kind to one field
   * (e.g. a raised minimum and a lowered maximum) share the id, so one acknowledgement covers both.
   */
  readonly id: string;
}

/** Builds a change with its `id` and `breaking` filled in. @internal */
export function crdChange(kind: CrdChangeKind, path: string, message: string, version?: string): CrdChange {
  const id = version === undefined ? `${kind} ${path}` : `${kind} ${version}:${path}`;
  return {
    kind,
    breaking: BREAKING_CHANGE_KINDS.has(kind),
    ...(version === undefined ? {} : { version }),
    path,
    message,
    id,
  };
}

/** `id: message` for printing. @internal */
export function formatCrdChange(change: CrdChange): string {
  return `${change.breaking ? 'BREAKING ' : ''}${change.id}: ${change.message}`;
}
