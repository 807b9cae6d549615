/** Electron entry: everything else lives in app/. */
import { startApp } from './app';

startApp({ mainDir: import.meta.dirname });
