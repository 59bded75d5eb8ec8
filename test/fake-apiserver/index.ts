export * from './types';
export { startFakeApiServer, FakeKubeApiServer } from './server';
export { encodeContinue } from './list';
export { loadClientNode } from './client-node';
export type { ClientNode } from './client-node';
export { waitFor } from './wait';
