//! The package file: one self-contained container of a manifest and blobs.
//!
//! Layout (all integers little-endian):
//!
//! | offset | size | field |
//! |---|---|---|
//! | 0 | 8 | magic `\x89NPK\r\n\x1a\n` (PNG-style: catches text-mode copies and truncation to 7 bits) |
//! | 8 | 4 | format version ([`FORMAT_VERSION`]) |
//! | 12 | 4 | flags, 0 |
//! | 16 | 8 | manifest length `M` |
//! | 24 | 4 | CRC-32 of the manifest |
//! | 28 | 4 | reserved, 0 |
//! | 32 | 8 | data section length `D` |
//! | 40 | M | the manifest, UTF-8 JSON ([`Manifest`]) |
//! | ... | | zero padding to a multiple of [`ALIGN`] |
//! | S | D | the data section: blobs at multiples of [`ALIGN`] from `S`, zero padding between |
//!
//! The file ends exactly at `S + D`. Each blob's offset (from `S`), length and CRC-32 are in
//! the manifest. Opening checks, in this order: magic, version (before anything a newer
//! version may have changed), lengths against the file's, the manifest's checksum, its JSON,
//! its consistency ([`Manifest::check`]), each blob's range and checksum. Writing is
//! deterministic: the same manifest and blobs give the same bytes.

use std::path::Path;

use crate::crc32::crc32;
use crate::manifest::{BlobRef, Manifest};
use crate::Error;

/// The first eight bytes of every package.
pub const MAGIC: [u8; 8] = *b"\x89NPK\r\n\x1a\n";
/// The format version this crate writes and reads.
pub const FORMAT_VERSION: u32 = 1;
/// The alignment of the data section and of every blob in it.
pub const ALIGN: usize = 64;
/// The length of the fixed header.
pub const HEADER_LEN: usize = 40;

/// An opened package: the manifest, checked, and the file's bytes.
#[derive(Clone, Debug)]
pub struct Package {
    manifest: Manifest,
    bytes: Vec<u8>,
    data_start: usize,
}

fn align(n: usize) -> usize {
    n.div_ceil(ALIGN) * ALIGN
}

fn u32_at(b: &[u8], at: usize) -> u32 {
    u32::from_le_bytes(b[at..at + 4].try_into().expect("4 bytes in the header"))
}

fn u64_at(b: &[u8], at: usize) -> u64 {
    u64::from_le_bytes(b[at..at + 8].try_into().expect("8 bytes in the header"))
}

impl Package {
    /// A package of `manifest` (its `blobs` are replaced) holding `blobs`, laid out in order.
    pub fn new(mut manifest: Manifest, blobs: Vec<Vec<u8>>) -> Result<Package, Error> {
        let mut data = Vec::new();
        manifest.blobs.clear();
        for b in &blobs {
            data.resize(align(data.len()), 0);
            manifest.blobs.push(BlobRef {
                offset: data.len() as u64,
                length: b.len() as u64,
                crc32: crc32(b),
            });
            data.extend_from_slice(b);
        }
        manifest.check().map_err(Error::Manifest)?;
        let json = serde_json::to_vec_pretty(&manifest)
            .map_err(|e| Error::Manifest(format!("cannot serialise: {e}")))?;
        let mut bytes = Vec::with_capacity(align(HEADER_LEN + json.len()) + data.len());
        bytes.extend_from_slice(&MAGIC);
        bytes.extend_from_slice(&FORMAT_VERSION.to_le_bytes());
        bytes.extend_from_slice(&0u32.to_le_bytes());
        bytes.extend_from_slice(&(json.len() as u64).to_le_bytes());
        bytes.extend_from_slice(&crc32(&json).to_le_bytes());
        bytes.extend_from_slice(&0u32.to_le_bytes());
        bytes.extend_from_slice(&(data.len() as u64).to_le_bytes());
        bytes.extend_from_slice(&json);
        let data_start = align(bytes.len());
        bytes.resize(data_start, 0);
        bytes.extend_from_slice(&data);
        Ok(Package {
            manifest,
            bytes,
            data_start,
        })
    }

    /// Reads and checks the package at `path`.
    pub fn open(path: impl AsRef<Path>) -> Result<Package, Error> {
        let path = path.as_ref();
        let bytes = std::fs::read(path).map_err(|error| Error::Io {
            path: path.display().to_string(),
            error,
        })?;
        Package::from_bytes(bytes)
    }

    /// Checks `bytes` as a package (see the module docs for what is checked, in which order).
    pub fn from_bytes(bytes: Vec<u8>) -> Result<Package, Error> {
        let have = bytes.len() as u64;
        if bytes.len() < MAGIC.len() || bytes[..MAGIC.len()] != MAGIC {
            return Err(Error::Magic);
        }
        if bytes.len() < 12 {
            return Err(Error::Truncated {
                what: "the format version".into(),
                need: 12,
                have,
            });
        }
        let version = u32_at(&bytes, 8);
        if version != FORMAT_VERSION {
            return Err(Error::Version {
                found: version,
                supported: FORMAT_VERSION,
                runtime: env!("CARGO_PKG_VERSION"),
            });
        }
        if bytes.len() < HEADER_LEN {
            return Err(Error::Truncated {
                what: "the header".into(),
                need: HEADER_LEN as u64,
                have,
            });
        }
        if u32_at(&bytes, 12) != 0 || u32_at(&bytes, 28) != 0 {
            return Err(Error::Layout(
                "the header's flags and reserved fields must be 0".into(),
            ));
        }
        let manifest_len = u64_at(&bytes, 16);
        let manifest_end = (HEADER_LEN as u64)
            .checked_add(manifest_len)
            .filter(|&e| e <= have)
            .ok_or(Error::Truncated {
                what: format!("the manifest ({manifest_len} bytes)"),
                need: (HEADER_LEN as u64).saturating_add(manifest_len),
                have,
            })? as usize;
        let data_start = align(manifest_end);
        let data_len = u64_at(&bytes, 32);
        let end = (data_start as u64).checked_add(data_len);
        match end {
            Some(e) if e == have => {}
            Some(e) if e < have => {
                return Err(Error::Layout(format!(
                    "{} bytes after the end of the data section",
                    have - e
                )))
            }
            _ => {
                return Err(Error::Truncated {
                    what: format!("the data section ({data_len} bytes)"),
                    need: end.unwrap_or(u64::MAX),
                    have,
                })
            }
        }
        if bytes[manifest_end..data_start].iter().any(|&b| b != 0) {
            return Err(Error::Layout(
                "the padding after the manifest is not zero".into(),
            ));
        }
        let json = &bytes[HEADER_LEN..manifest_end];
        let (expected, actual) = (u32_at(&bytes, 24), crc32(json));
        if expected != actual {
            return Err(Error::Checksum {
                what: "the manifest".into(),
                expected,
                actual,
            });
        }
        let manifest: Manifest =
            serde_json::from_slice(json).map_err(|e| Error::Manifest(e.to_string()))?;
        manifest.check().map_err(Error::Manifest)?;
        let pkg = Package {
            manifest,
            bytes,
            data_start,
        };
        for (i, b) in pkg.manifest.blobs.iter().enumerate() {
            let range = b
                .offset
                .checked_add(b.length)
                .filter(|&e| e <= data_len && b.offset % ALIGN as u64 == 0);
            if range.is_none() {
                return Err(Error::Layout(format!(
                    "blob #{i} (offset {}, {} bytes) lies outside the {data_len}-byte data section or is misaligned",
                    b.offset, b.length
                )));
            }
            let actual = crc32(pkg.blob(i));
            if actual != b.crc32 {
                return Err(Error::Checksum {
                    what: format!("blob #{i}"),
                    expected: b.crc32,
                    actual,
                });
            }
        }
        Ok(pkg)
    }

    /// The manifest.
    pub fn manifest(&self) -> &Manifest {
        &self.manifest
    }

    /// The bytes of blob `index` (checked when the package was opened).
    ///
    /// # Panics
    /// If `index` is not a blob of the manifest.
    pub fn blob(&self, index: usize) -> &[u8] {
        let b = &self.manifest.blobs[index];
        let start = self.data_start + b.offset as usize;
        &self.bytes[start..start + b.length as usize]
    }

    /// The package's bytes, as written to a file.
    pub fn as_bytes(&self) -> &[u8] {
        &self.bytes
    }

    /// The file size.
    pub fn len(&self) -> usize {
        self.bytes.len()
    }

    /// Whether the package has no bytes (never: there is always a header).
    pub fn is_empty(&self) -> bool {
        self.bytes.is_empty()
    }

    /// Writes the package to `path` through a temporary file renamed into place, so that a
    /// failed write leaves no half package.
    pub fn write(&self, path: impl AsRef<Path>) -> std::io::Result<()> {
        let path = path.as_ref();
        let mut tmp = path.as_os_str().to_owned();
        tmp.push(".tmp");
        let tmp = std::path::PathBuf::from(tmp);
        std::fs::write(&tmp, &self.bytes)?;
        std::fs::rename(&tmp, path).inspect_err(|_| {
            let _ = std::fs::remove_file(&tmp);
        })
    }
}
