/**
 * A shared session store: where sessions go after their run so that every machine reads them (a
 * folder on a shared mount, or S3 and the servers that speak its protocol). It holds each session
 * as its folder holds it, file by file under the session's id; a session whose `session.json` is
 * there is whole (the uploader writes it last, session-upload.ts).
 *
 * Every call answers a value: a store that cannot be reached, a bucket that is not there, refused
 * or missing credentials come back as a `StoreProblem` whose message names the store and the fix.
 */

/** A file of a stored session: its path inside the session folder (`screenshots/step-0001.jpg`) and its size. */
export interface StoredFile {
  path: string;
  bytes: number;
}

/** What the store holds of one file, to compare with the local copy before the local copy goes. */
export interface StoredCopy {
  bytes: number;
  /** The SHA-256 of the content (hex), as the store knows it; null when it cannot tell. */
  sha256: string | null;
}

export type StoreProblemKind =
  /** Nothing answers where the store should be (a server down, a wrong endpoint, a folder not mounted). */
  | 'unreachable'
  /** The bucket (or the folder) does not exist. */
  | 'missing'
  /** No credentials were found, or the store refused them. */
  | 'credentials'
  /** Anything else the store answered (a full disk, a server error). */
  | 'failed';

export interface StoreProblem {
  ok: false;
  kind: StoreProblemKind;
  /** One line: the store named, what went wrong, and the fix where there is one. */
  message: string;
}

export type StoreResult<T> = { ok: true; value: T } | StoreProblem;

export interface SharedStore {
  /** `s3://bucket/prefix` or the folder's path: how messages and listings name it. */
  readonly name: string;
  /** Whether the store can be used now (reached, there, the credentials taken). */
  check(): Promise<StoreResult<void>>;
  /** The ids of the session folders in the store (whole or not: see `session.json`). */
  sessionIds(): Promise<StoreResult<string[]>>;
  /** Every file of one session, with its size. */
  files(id: string): Promise<StoreResult<StoredFile[]>>;
  /** One file's content; null when it is not there. */
  read(id: string, path: string): Promise<StoreResult<Buffer | null>>;
  /**
   * Writes one file whole (a reader sees the old content or the new, never half); `sha256` is its
   * digest, kept with it. `signal` abandons a write under way (it then fails, and is not there).
   */
  write(id: string, path: string, data: Buffer, sha256: string, signal?: AbortSignal): Promise<StoreResult<void>>;
  /** What the store holds of one file now; null when it is not there. */
  copy(id: string, path: string): Promise<StoreResult<StoredCopy | null>>;
  /** Lets go of connections (an S3 client's sockets). */
  close(): void;
}

/** Where the S3 client connects and with what: resolved from the AWS variables and config.json's `store.s3`. */
export interface S3StoreOptions {
  bucket: string;
  /** Without slashes at either end; '' for the bucket's root. */
  prefix: string;
  /** An S3-compatible server; null: AWS's own endpoint for the region. */
  endpoint: string | null;
  /** Where the endpoint came from (`AWS_ENDPOINT_URL_S3`, `store.s3.endpoint`, ...), for messages. */
  endpointFrom: string | null;
  region: string;
  /** The bucket in the path (http://host/bucket/key), as S3-compatible servers want it. */
  pathStyle: boolean;
  /** From AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY; null: the AWS SDK's own chain (a profile, SSO, an instance role). */
  credentials: { accessKeyId: string; secretAccessKey: string; sessionToken?: string } | null;
}

/** The store a process uses, as the settings resolved it. */
export type SharedStoreSettings = { kind: 'folder'; path: string; keepLocal: boolean } | ({ kind: 's3'; keepLocal: boolean } & S3StoreOptions);
