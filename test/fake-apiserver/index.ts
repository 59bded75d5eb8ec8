export * from './types';
export { startFakeApiServer, FakeKubeApiServer, encodeContinue } from './server';
export { loadClientNode } from './client-node';
export type { ClientNode } from './client-node';
export { waitFor } from './wait';
