//===- OutputWriter.cpp - Safe names and all-or-nothing output files ------===//

#include "OutputWriter.h"

#include <atomic>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fcntl.h>
#include <filesystem>
#include <set>
#include <unistd.h>

namespace tessel::run {

std::string sanitizeFileName(const std::string &name) {
  std::string s;
  for (char c : name) {
    bool safe = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
                (c >= '0' && c <= '9') || c == '.' || c == '_' || c == '-';
    s += safe ? c : '_';
  }
  if (s.find_first_not_of('.') == std::string::npos)
    s = std::string(s.size(), '_'); // "", ".", ".."
  if (s.empty())
    s = "_";
  return s;
}

std::vector<std::string>
uniqueFileStems(const std::vector<std::string> &names) {
  std::set<std::string> taken;
  std::vector<std::string> stems;
  for (const std::string &name : names) {
    std::string base = sanitizeFileName(name), stem = base;
    for (int n = 2; taken.count(stem); ++n)
      stem = base + "_" + std::to_string(n);
    taken.insert(stem);
    stems.push_back(stem);
  }
  return stems;
}

namespace {

/// Creates a new file next to `target` with a unique temporary name (mode
/// 0666 less the umask, like any output file); -1 on failure.
int createTemporary(const std::string &dir, const std::string &fileName,
                    std::string &tempPath) {
  static std::atomic<unsigned> counter{0};
  for (int attempt = 0; attempt < 100; ++attempt) {
    tempPath = dir + "/." + fileName + ".tmp-" + std::to_string(getpid()) +
               "-" + std::to_string(counter++);
    int fd =
        ::open(tempPath.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
    if (fd >= 0 || errno != EEXIST)
      return fd;
  }
  return -1;
}

/// Writes `file` to a new temporary file in `dir`; `tempPath` is set as soon
/// as the file exists (so the caller can remove it).
bool writeTemporary(const std::string &dir, const OutputFile &file,
                    std::string &tempPath, std::string &error) {
  std::string path;
  int fd = createTemporary(dir, file.fileName, path);
  if (fd < 0) {
    error = dir + ": cannot create a file: " + std::strerror(errno);
    return false;
  }
  tempPath = path;
  const uint8_t *p = file.bytes.data();
  size_t left = file.bytes.size();
  while (left) {
    ssize_t n = ::write(fd, p, left);
    if (n < 0 && errno == EINTR)
      continue;
    if (n <= 0) {
      error = dir + "/" + file.fileName + ": " + std::strerror(errno);
      ::close(fd);
      return false;
    }
    p += n;
    left -= static_cast<size_t>(n);
  }
  if (::close(fd) != 0) {
    error = dir + "/" + file.fileName + ": " + std::strerror(errno);
    return false;
  }
  return true;
}

} // namespace

bool writeFilesAtomically(const std::string &dir,
                          const std::vector<OutputFile> &files,
                          std::string &error) {
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec || !std::filesystem::is_directory(dir)) {
    error = dir + ": cannot create the output directory" +
            (ec ? ": " + ec.message() : "");
    return false;
  }
  // The renames below must not fail half-way: rule out the one likely cause.
  for (const OutputFile &file : files)
    if (std::filesystem::is_directory(dir + "/" + file.fileName, ec)) {
      error = dir + "/" + file.fileName + ": is a directory";
      return false;
    }
  std::vector<std::string> temps;
  bool ok = true;
  for (const OutputFile &file : files) {
    std::string temp;
    if (!writeTemporary(dir, file, temp, error)) {
      if (!temp.empty())
        temps.push_back(temp);
      ok = false;
      break;
    }
    temps.push_back(temp);
  }
  for (size_t i = 0; ok && i < files.size(); ++i) {
    std::string target = dir + "/" + files[i].fileName;
    if (std::rename(temps[i].c_str(), target.c_str()) != 0) {
      error = target + ": " + std::strerror(errno);
      ok = false;
    } else {
      temps[i].clear();
    }
  }
  for (const std::string &temp : temps)
    if (!temp.empty())
      std::remove(temp.c_str());
  return ok;
}

} // namespace tessel::run
