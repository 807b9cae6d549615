/**
 * A shared session store in S3, or in any server that speaks its protocol (MinIO, Ceph, SeaweedFS,
 * s3rver...), through the AWS SDK's S3 client: `<prefix>/<id>/<path>`, the session folder as
 * recorded. Each file is one PutObject (S3 shows an object whole or not at all) carrying its
 * Content-MD5, so the server refuses a body damaged on the way, and its SHA-256 as metadata, so
 * the uploader can compare the stored copy with the local one before the local one goes.
 *
 * The SDK is loaded at the first call: commands that never reach a store never pay for it.
 * Checksums are sent only where S3 requires them (`WHEN_REQUIRED`): many S3-compatible servers
 * refuse the SDK's newer default ones.
 */
import { createHash } from 'node:crypto';
import type * as S3Sdk from '@aws-sdk/client-s3';
import type { S3Client } from '@aws-sdk/client-s3';
import { SESSION_ID_PATTERN } from '../paths';
import { s3Problem, storeName } from './s3-problems';
import { isStorablePath } from './stored-paths';
import type { S3StoreOptions, SharedStore, StoredCopy, StoredFile, StoreResult } from './types';

type Sdk = typeof S3Sdk;

/** How long to wait for a connection: an endpoint that does not answer is said, not waited on for minutes. */
const CONNECTION_TIMEOUT_MS = 10_000;
/** A request that stalls mid-transfer (a screenshot is at most a few MB). */
const REQUEST_TIMEOUT_MS = 120_000;

export class S3Store implements SharedStore {
  readonly name: string;
  private loaded: Promise<{ sdk: Sdk; client: S3Client }> | null = null;

  constructor(private readonly options: S3StoreOptions) {
    this.name = storeName(options);
  }

  async check(): Promise<StoreResult<void>> {
    return this.call(async ({ sdk, client }) => {
      await client.send(new sdk.HeadBucketCommand({ Bucket: this.options.bucket }));
    }, true);
  }

  async sessionIds(): Promise<StoreResult<string[]>> {
    return this.call(async ({ sdk, client }) => {
      const ids: string[] = [];
      let token: string | undefined;
      do {
        const page = await client.send(new sdk.ListObjectsV2Command({ Bucket: this.options.bucket, Prefix: this.base, Delimiter: '/', ...(token ? { ContinuationToken: token } : {}) }));
        for (const common of page.CommonPrefixes ?? []) {
          const id = common.Prefix?.slice(this.base.length, -1) ?? '';
          if (SESSION_ID_PATTERN.test(id)) ids.push(id);
        }
        token = page.IsTruncated ? page.NextContinuationToken : undefined;
      } while (token);
      return ids;
    }, true);
  }

  async files(id: string): Promise<StoreResult<StoredFile[]>> {
    return this.call(async ({ sdk, client }) => {
      const folder = `${this.base}${id}/`;
      const files: StoredFile[] = [];
      let token: string | undefined;
      do {
        const page = await client.send(new sdk.ListObjectsV2Command({ Bucket: this.options.bucket, Prefix: folder, ...(token ? { ContinuationToken: token } : {}) }));
        for (const object of page.Contents ?? []) {
          const path = object.Key?.slice(folder.length) ?? '';
          if (isStorablePath(path)) files.push({ path, bytes: object.Size ?? 0 });
        }
        token = page.IsTruncated ? page.NextContinuationToken : undefined;
      } while (token);
      return files;
    }, true);
  }

  async read(id: string, path: string): Promise<StoreResult<Buffer | null>> {
    return this.call(async ({ sdk, client }) => {
      try {
        const object = await client.send(new sdk.GetObjectCommand({ Bucket: this.options.bucket, Key: this.key(id, path) }));
        return object.Body ? Buffer.from(await object.Body.transformToByteArray()) : Buffer.alloc(0);
      } catch (error) {
        if ((error as { name?: string }).name === 'NoSuchKey') return null;
        throw error;
      }
    });
  }

  async write(id: string, path: string, data: Buffer, sha256: string, signal?: AbortSignal): Promise<StoreResult<void>> {
    return this.call(async ({ sdk, client }) => {
      await client.send(
        new sdk.PutObjectCommand({
          Bucket: this.options.bucket,
          Key: this.key(id, path),
          Body: data,
          ContentLength: data.length,
          ContentMD5: createHash('md5').update(data).digest('base64'),
          Metadata: { sha256 },
        }),
        signal ? { abortSignal: signal } : {},
      );
    });
  }

  async copy(id: string, path: string): Promise<StoreResult<StoredCopy | null>> {
    return this.call(async ({ sdk, client }) => {
      try {
        const head = await client.send(new sdk.HeadObjectCommand({ Bucket: this.options.bucket, Key: this.key(id, path) }));
        return { bytes: head.ContentLength ?? 0, sha256: head.Metadata?.sha256 ?? null };
      } catch (error) {
        if ((error as { $metadata?: { httpStatusCode?: number } }).$metadata?.httpStatusCode === 404) return null;
        throw error;
      }
    });
  }

  close(): void {
    void this.loaded?.then(({ client }) => client.destroy()).catch(() => undefined);
    this.loaded = null;
  }

  private get base(): string {
    return this.options.prefix ? `${this.options.prefix}/` : '';
  }

  private key(id: string, path: string): string {
    return `${this.base}${id}/${path}`;
  }

  private async call<T>(work: (s3: { sdk: Sdk; client: S3Client }) => Promise<T>, bucketLevel = false): Promise<StoreResult<T>> {
    try {
      return { ok: true, value: await work(await this.client()) };
    } catch (error) {
      return s3Problem(error, this.options, bucketLevel);
    }
  }

  private client(): Promise<{ sdk: Sdk; client: S3Client }> {
    // The SDK warns on Node.js 20 about the Node.js its releases after 2026 will need: a notice for
    // Mnemo's maintainers (package.json's engines), not a line for every command that reads a store.
    process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';
    this.loaded ??= import('@aws-sdk/client-s3').then((sdk) => {
      const { endpoint, region, pathStyle, credentials } = this.options;
      const client = new sdk.S3Client({
        region,
        ...(endpoint ? { endpoint } : {}),
        forcePathStyle: pathStyle,
        ...(credentials ? { credentials } : {}),
        followRegionRedirects: true,
        requestChecksumCalculation: 'WHEN_REQUIRED',
        responseChecksumValidation: 'WHEN_REQUIRED',
        requestHandler: { connectionTimeout: CONNECTION_TIMEOUT_MS, requestTimeout: REQUEST_TIMEOUT_MS },
      });
      return { sdk, client };
    });
    return this.loaded;
  }
}
