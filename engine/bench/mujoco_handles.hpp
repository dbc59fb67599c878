#pragma once
// MuJoCo's C objects as owning handles, and a model compiled from XML text,
// for the tests and tools that use MuJoCo as an oracle or a speed peer.
#include <mujoco/mujoco.h>

#include <cstring>
#include <memory>
#include <stdexcept>
#include <string>

namespace loopsim::mujoco_peer {

struct MjModelDeleter {
  void operator()(mjModel* m) const { mj_deleteModel(m); }
};
struct MjDataDeleter {
  void operator()(mjData* d) const { mj_deleteData(d); }
};
struct MjVfsDeleter {
  void operator()(mjVFS* vfs) const {
    mj_deleteVFS(vfs);
    delete vfs;
  }
};
using MjModelPtr = std::unique_ptr<mjModel, MjModelDeleter>;
using MjDataPtr = std::unique_ptr<mjData, MjDataDeleter>;
using MjVfsPtr = std::unique_ptr<mjVFS, MjVfsDeleter>;

/// An empty virtual file system (mjVFS holds 2000 file names: too large for the stack).
inline MjVfsPtr makeVfs() {
  MjVfsPtr vfs(new mjVFS);
  mj_defaultVFS(vfs.get());
  return vfs;
}

/// Adds a file of the given bytes to the virtual file system.
inline void addVfsFile(mjVFS* vfs, const std::string& name, const std::string& bytes) {
  if (mj_makeEmptyFileVFS(vfs, name.c_str(), static_cast<int>(bytes.size())) != 0) throw std::runtime_error("VFS full");
  std::memcpy(vfs->filedata[mj_findFileVFS(vfs, name.c_str())], bytes.data(), bytes.size());
}

/// Compiles `text` (MJCF, or URDF with a <mujoco> block) as the file `name`.
inline MjModelPtr loadMujocoText(const std::string& text, const std::string& name) {
  MjVfsPtr vfs = makeVfs();
  addVfsFile(vfs.get(), name, text);
  char error[1000] = "";
  mjModel* m = mj_loadXML(name.c_str(), vfs.get(), error, sizeof error);
  if (m == nullptr) throw std::runtime_error(std::string("MuJoCo: ") + error);
  return MjModelPtr(m);
}

}  // namespace loopsim::mujoco_peer
