/** Makes the build fresh now (scripts/test.js runs it once before its lanes start). */
import { setup } from './build-fresh';

await setup();
