/**
 * The Foo controller binary able to run sharded (`--sharding-ring=foo`): controllers/foo/main.ts's binary with its
 * contract plus `sharding` (the member Leases). The bench's entry only: the Foo chart's contract stays without it
 * (least privilege: that chart does not shard).
 */
import { FOO_CONTRACT } from '../controllers/foo/contract';
import { setupFooController } from '../controllers/foo/controller';
import { runControllerBinary } from '../runtime';

runControllerBinary({
  name: 'foo',
  leaseName: 'foo-controller-leader',
  contract: { ...FOO_CONTRACT, sharding: true },
  setup: (manager, flags) => setupFooController(manager, { concurrency: flags.concurrency }),
});
