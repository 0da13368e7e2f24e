/**
 * Where worker-read and kernel-read data files live, behind one small seam ({@link
 * dev.dml.ray.data.store.DataStore}): local paths (a shared mount, {@code file://} URLs) and S3
 * or an S3-compatible store ({@code s3://bucket/key}, {@code s3://bucket/prefix/}). The readers
 * of {@code dev.dml.ray.data} stay one copy: they read a {@link
 * dev.dml.ray.data.store.StoredFile} through a channel or a Parquet {@code InputFile}, which on
 * S3 are ranged GETs ({@link dev.dml.ray.data.store.RangedFile}).
 */
package dev.dml.ray.data.store;
