// The worker thread's entry when the reference runs from its sources (a checkout, the tests): tsx
// compiles the TypeScript there as in the main thread. The build starts worker-thread.js directly.
import { register } from 'tsx/esm/api';

register();
await import('./worker-thread.ts');
