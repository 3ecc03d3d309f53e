import { crc32 } from 'node:zlib';

/** Small but real files of each kind, built in memory so the tests need no binary fixtures. */

export const PNG = Buffer.from(
  '89504e470d0a1a0a0000000d49484452000000010000000108060000001f15c4890000000d49444154789c6360000002000154a24f5d0000000049454e44ae426082',
  'hex',
);

export const JPEG = Buffer.concat([
  Buffer.from('ffd8ffe000104a46494600010100000100010000', 'hex'),
  Buffer.alloc(64, 0),
  Buffer.from('ffd9', 'hex'),
]);

export function pdf(sizeBytes = 64): Buffer {
  const head = Buffer.from('%PDF-1.4\n');
  const tail = Buffer.from('\n%%EOF\n');
  return Buffer.concat([head, Buffer.alloc(Math.max(0, sizeBytes - head.length - tail.length), 0x20), tail]);
}

/** A Windows executable: the "MZ" header file-type knows. */
export const EXE = Buffer.concat([
  Buffer.from('4d5a90000300000004000000ffff0000', 'hex'),
  Buffer.alloc(256, 0),
]);

/** A zip archive with the given files, stored (no compression): enough for type detection. */
export function storedZip(files: Record<string, string>): Buffer {
  const locals: Buffer[] = [];
  const centrals: Buffer[] = [];
  let offset = 0;
  for (const [name, content] of Object.entries(files)) {
    const nameBytes = Buffer.from(name);
    const data = Buffer.from(content);
    const crc = crc32(data);
    const local = Buffer.alloc(30);
    local.writeUInt32LE(0x04034b50, 0);
    local.writeUInt16LE(20, 4);
    local.writeUInt32LE(crc, 14);
    local.writeUInt32LE(data.length, 18);
    local.writeUInt32LE(data.length, 22);
    local.writeUInt16LE(nameBytes.length, 26);
    locals.push(local, nameBytes, data);
    const central = Buffer.alloc(46);
    central.writeUInt32LE(0x02014b50, 0);
    central.writeUInt16LE(20, 4);
    central.writeUInt16LE(20, 6);
    central.writeUInt32LE(crc, 16);
    central.writeUInt32LE(data.length, 20);
    central.writeUInt32LE(data.length, 24);
    central.writeUInt16LE(nameBytes.length, 28);
    central.writeUInt32LE(offset, 42);
    centrals.push(central, nameBytes);
    offset += 30 + nameBytes.length + data.length;
  }
  const centralBytes = Buffer.concat(centrals);
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE(Object.keys(files).length, 8);
  end.writeUInt16LE(Object.keys(files).length, 10);
  end.writeUInt32LE(centralBytes.length, 12);
  end.writeUInt32LE(offset, 16);
  return Buffer.concat([...locals, centralBytes, end]);
}

export const DOCX = storedZip({
  '[Content_Types].xml':
    '<?xml version="1.0"?><Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"><Override PartName="/word/document.xml" ContentType="application/vnd.openxmlformats-officedocument.wordprocessingml.document.main+xml"/></Types>',
  'word/document.xml': '<w:document/>',
});

export const PLAIN_ZIP = storedZip({ 'notes.txt': 'not a word document' });

/** An OLE2 compound file whose directory names a WordDocument stream, as every .doc has. */
export function doc(): Buffer {
  const header = Buffer.alloc(512, 0);
  Buffer.from('d0cf11e0a1b11ae1', 'hex').copy(header, 0);
  const directory = Buffer.alloc(1536, 0);
  Buffer.from('WordDocument', 'utf16le').copy(directory, 0);
  return Buffer.concat([header, directory]);
}

/** The same container with no WordDocument stream (as an .xls or .msi would be). */
export function otherCompoundFile(): Buffer {
  const header = Buffer.alloc(512, 0);
  Buffer.from('d0cf11e0a1b11ae1', 'hex').copy(header, 0);
  const directory = Buffer.alloc(1536, 0);
  Buffer.from('Workbook', 'utf16le').copy(directory, 0);
  return Buffer.concat([header, directory]);
}

export const MEDIA = {
  pdf: 'application/pdf',
  png: 'image/png',
  jpeg: 'image/jpeg',
  doc: 'application/msword',
  docx: 'application/vnd.openxmlformats-officedocument.wordprocessingml.document',
};
