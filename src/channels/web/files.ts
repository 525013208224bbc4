/**
 * Files the bot sends to web chats: copied under <dataDir>/web-files/<random id>/<name> and recorded in
 * the store, so that the download route serves exactly what sendFile created and nothing else.
 */
import { randomUUID } from "node:crypto";
import { copyFile, mkdir, stat } from "node:fs/promises";
import { join } from "node:path";
import type { Namespace, Store } from "../../infra/store/types.js";
import { safeFileName } from "../../core/file-names.js";
import type { OutboundFile } from "../../core/types.js";
import type { WebAttachment } from "./schema.js";

interface FileRecord {
  name: string;
  mime: string;
}

export interface StoredFile {
  path: string;
  name: string;
  mime: string;
  size: number;
}

const ID_PATTERN = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
/** Chat ids cannot contain ":", so these keys never meet a transcript in the shared "web" namespace. */
const recordKey = (id: string): string => `file:${id}`;

export class WebFiles {
  private readonly records: Namespace<FileRecord>;
  private readonly root: string;

  constructor(
    store: Store,
    dataDir: string,
    private readonly maxBytes: number,
  ) {
    this.records = store.namespace<FileRecord>("web");
    this.root = join(dataDir, "web-files");
  }

  async save(file: OutboundFile): Promise<WebAttachment> {
    const { size } = await stat(file.path);
    if (size > this.maxBytes) {
      throw new Error(`File ${file.name} is ${size} bytes; WebChat sends at most ${this.maxBytes}`);
    }
    const id = randomUUID();
    const name = safeFileName(file.name);
    const mime = file.mime ?? "application/octet-stream";
    await mkdir(join(this.root, id), { recursive: true });
    await copyFile(file.path, join(this.root, id, name));
    await this.records.set(recordKey(id), { name, mime });
    return { name, mime, size, url: `/api/v1/files/${id}/${encodeURIComponent(name)}` };
  }

  /** The file behind a download URL, or undefined unless sendFile created exactly this id and name. */
  async find(id: string, name: string): Promise<StoredFile | undefined> {
    if (!ID_PATTERN.test(id)) return undefined;
    const record = await this.records.get(recordKey(id));
    if (record?.name !== name) return undefined;
    const path = join(this.root, id, record.name);
    const size = await stat(path).then((s) => s.size, () => undefined);
    return size === undefined ? undefined : { path, name: record.name, mime: record.mime, size };
  }
}
