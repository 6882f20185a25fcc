// After the end-to-end suite: the products built for the differential test that no test removed.
import { removeProducts } from './builds';

export default function globalTeardown() {
  removeProducts();
}
