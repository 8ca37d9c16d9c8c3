package io.nnaudit.trail;

import java.nio.file.attribute.BasicFileAttributes;
import java.nio.file.attribute.FileTime;
import java.util.Map;

/**
 * What lstat(2) says of a trail's file, with its owner as the number the file system keeps. Resolving an owner's
 * name (what {@code PosixFileAttributes.owner()} does) reads the user database, a parse of {@code /etc/passwd} on
 * most hosts, at every call; the shipper and the compressor compare owners at every look at the files, so they
 * compare numbers. Immutable.
 */
public final class FileStat implements BasicFileAttributes {
  /** The attributes read, in one lstat, through the {@code unix} view: never {@code owner}, which resolves names. */
  static final String ATTRIBUTES = "unix:size,lastModifiedTime,lastAccessTime,creationTime,isRegularFile,"
      + "isDirectory,isSymbolicLink,isOther,fileKey,uid";

  private final long size;
  private final FileTime lastModifiedTime;
  private final FileTime lastAccessTime;
  private final FileTime creationTime;
  private final boolean regularFile;
  private final boolean directory;
  private final boolean symbolicLink;
  private final boolean other;
  private final Object fileKey;
  private final int uid;

  FileStat(Map<String, Object> a) {
    this.size = (Long) a.get("size");
    this.lastModifiedTime = (FileTime) a.get("lastModifiedTime");
    this.lastAccessTime = (FileTime) a.get("lastAccessTime");
    this.creationTime = (FileTime) a.get("creationTime");
    this.regularFile = (Boolean) a.get("isRegularFile");
    this.directory = (Boolean) a.get("isDirectory");
    this.symbolicLink = (Boolean) a.get("isSymbolicLink");
    this.other = (Boolean) a.get("isOther");
    this.fileKey = a.get("fileKey");
    this.uid = (Integer) a.get("uid");
  }

  /** The owner's user id. */
  public int uid() {
    return uid;
  }

  /** Whether {@code o} has the same owner. */
  public boolean sameOwner(FileStat o) {
    return uid == o.uid;
  }

  @Override
  public FileTime lastModifiedTime() {
    return lastModifiedTime;
  }

  @Override
  public FileTime lastAccessTime() {
    return lastAccessTime;
  }

  @Override
  public FileTime creationTime() {
    return creationTime;
  }

  @Override
  public boolean isRegularFile() {
    return regularFile;
  }

  @Override
  public boolean isDirectory() {
    return directory;
  }

  @Override
  public boolean isSymbolicLink() {
    return symbolicLink;
  }

  @Override
  public boolean isOther() {
    return other;
  }

  @Override
  public long size() {
    return size;
  }

  @Override
  public Object fileKey() {
    return fileKey;
  }
}
