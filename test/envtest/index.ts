export * from './envtest';
export * from './for-each-api-server';
