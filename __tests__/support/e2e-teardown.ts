// After the end-to-end suite: the other lane's end (when `npm test` ran two), then the products
// built for the differential test that no test removed.
import { removeProducts } from './builds';
import { endOtherLane } from './e2e-lanes.cjs';

export default async function globalTeardown() {
  try {
    await endOtherLane();
  } finally {
    removeProducts();
  }
}
