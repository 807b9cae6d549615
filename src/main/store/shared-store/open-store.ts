/** The shared session store the settings name: a folder, or S3 (the SDK loaded at its first call). */
import { FolderStore } from './folder-store';
import { S3Store } from './s3-store';
import type { SharedStore, SharedStoreSettings } from './types';

export function openSharedStore(settings: SharedStoreSettings): SharedStore {
  return settings.kind === 'folder' ? new FolderStore(settings.path) : new S3Store(settings);
}
