export * from './schema/json-schema-props';
export * from './crd/crd-spec';
export * from './app/warnings';
export * from './app/operator-app';
export * from './validation/issue';
export * from './codegen/generate-types';
export * from './codegen/imports-folder';
