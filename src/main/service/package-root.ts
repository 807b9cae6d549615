/** The repository (or installed package) root: three folders up from src/main/service/. */
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

export const PACKAGE_ROOT = resolve(fileURLToPath(new URL('../../../', import.meta.url)));
