#include "render/model_view.hpp"

#include <Eigen/Eigenvalues>
#include <algorithm>
#include <cmath>
#include <filesystem>
#include <limits>
#include <set>

namespace loopsim::render {

namespace {

Eigen::Matrix4f scaled(const SE3& placement, const Eigen::Vector3f& scale) {
  return transformMatrix(placement.R.cast<float>(), placement.t.cast<float>(), scale);
}

// The box with the body's mass and principal inertia (placed at the CoM along
// the principal axes): a stand-in whose size says something true about the link.
Eigen::Matrix4f inertiaBox(const Inertia& inertia) {
  if (!(inertia.mass > 0.0)) return transformMatrix(Eigen::Matrix3f::Identity(), Eigen::Vector3f::Zero(), Eigen::Vector3f::Constant(0.05f));
  const Eigen::SelfAdjointEigenSolver<Matrix3> eig(inertia.inertia_com);
  const Vector3 I = eig.eigenvalues();
  Eigen::Vector3f size;
  for (int k = 0; k < 3; ++k) {
    const double s2 = 6.0 / inertia.mass * (I[(k + 1) % 3] + I[(k + 2) % 3] - I[k]);
    size[k] = static_cast<float>(std::sqrt(std::max(s2, 1e-4)));
  }
  Matrix3 R = eig.eigenvectors();
  if (R.determinant() < 0) R.col(2) *= -1.0;
  return transformMatrix(R.cast<float>(), inertia.com.cast<float>(), size);
}

}  // namespace

Eigen::Matrix4f poseMatrix(const SE3& pose) { return transformMatrix(pose.R.cast<float>(), pose.t.cast<float>()); }

void ModelView::addPrimitive(int body, const GpuMesh& mesh, const Eigen::Matrix4f& local, const Eigen::Vector4f& rgba) {
  parts_.push_back({body, &mesh, nullptr, local, rgba});
}

void ModelView::addPrimitive(int body, const RoundMesh& mesh, const Eigen::Matrix4f& local, const Eigen::Vector4f& rgba) {
  parts_.push_back({body, &mesh.finest(), &mesh, local, rgba});
}

ModelView::ModelView(const Model& model, Renderer& renderer, MeshCache& meshes) {
  const std::filesystem::path model_dir =
      model.source_file.empty() ? std::filesystem::path() : std::filesystem::path(model.source_file).parent_path();
  std::set<std::string> warned;
  for (const VisualGeometry& v : model.visuals) {
    const Eigen::Vector4f rgba = v.rgba.cast<float>();
    const auto size = v.size.cast<float>();
    switch (v.shape) {
      case VisualGeometry::Shape::Box: addPrimitive(v.body, renderer.box(), scaled(v.placement, size), rgba); break;
      case VisualGeometry::Shape::Sphere:
        addPrimitive(v.body, renderer.sphere(), scaled(v.placement, Eigen::Vector3f::Constant(size.x())), rgba);
        break;
      case VisualGeometry::Shape::Ellipsoid:
        addPrimitive(v.body, renderer.sphere(), scaled(v.placement, size), rgba);
        break;
      case VisualGeometry::Shape::Cylinder:
        addPrimitive(v.body, renderer.cylinder(), scaled(v.placement, {size.x(), size.x(), size.y()}), rgba);
        break;
      case VisualGeometry::Shape::Capsule: {
        addPrimitive(v.body, renderer.cylinder(), scaled(v.placement, {size.x(), size.x(), size.y()}), rgba);
        // Two hemispheres (the halves of spheres inside the cylinder would be hidden anyway);
        // the bottom one turned half a turn about x to face -z.
        for (float end : {-0.5f, 0.5f}) {
          SE3 cap = v.placement;
          cap.t += v.placement.R.col(2) * static_cast<double>(end * size.y());
          if (end < 0.0f) cap.R = cap.R * Eigen::Vector3d(1.0, -1.0, -1.0).asDiagonal();
          addPrimitive(v.body, renderer.hemisphere(), scaled(cap, Eigen::Vector3f::Constant(size.x())), rgba);
        }
        break;
      }
      case VisualGeometry::Shape::Mesh: {
        std::string error;
        const GpuMesh* mesh = meshes.get(v.mesh_file, model_dir, error);
        if (mesh != nullptr) {
          addPrimitive(v.body, *mesh, scaled(v.placement, v.mesh_scale.cast<float>()), rgba);
        } else {
          if (warned.insert(v.mesh_file).second) {
            warnings_.push_back("visual '" + v.name + "' on body '" + model.body_names[v.body] + "': " + error +
                                "; drawing a box sized from the body's inertia instead");
          }
          addPrimitive(v.body, renderer.box(), inertiaBox(model.body_inertias[v.body]), rgba);
        }
        break;
      }
    }
  }
}

void ModelView::draw(Renderer& renderer, std::span<const Eigen::Matrix4f> body_poses, const ModelStyle& style) const {
  const SolidStyle solid{style.wireframe, style.alpha_scale};
  for (const Part& part : parts_) {
    if (part.body >= static_cast<int>(body_poses.size())) continue;
    Eigen::Vector4f rgba = style.use_tint ? style.tint : part.rgba;
    if (part.body == style.highlighted_body) rgba.head<3>() = Eigen::Vector3f(1.0f, 0.15f, 0.1f);
    const Eigen::Matrix4f world = body_poses[part.body] * part.local;
    if (part.round != nullptr) renderer.drawSolid(*part.round, world, rgba, solid);
    else renderer.drawSolid(*part.mesh, world, rgba, solid);
  }
}

bool ModelView::bounds(std::span<const Eigen::Matrix4f> body_poses, Eigen::Vector3f& min_corner,
                       Eigen::Vector3f& max_corner) const {
  bool any = false;
  for (const Part& part : parts_) {
    if (part.body >= static_cast<int>(body_poses.size())) continue;
    const Eigen::Matrix4f world = body_poses[part.body] * part.local;
    for (int corner = 0; corner < 8; ++corner) {
      const Eigen::Vector3f local((corner & 1) ? part.mesh->maxCorner().x() : part.mesh->minCorner().x(),
                                  (corner & 2) ? part.mesh->maxCorner().y() : part.mesh->minCorner().y(),
                                  (corner & 4) ? part.mesh->maxCorner().z() : part.mesh->minCorner().z());
      const Eigen::Vector3f p = (world * local.homogeneous()).head<3>();
      min_corner = any ? min_corner.cwiseMin(p) : p;
      max_corner = any ? max_corner.cwiseMax(p) : p;
      any = true;
    }
  }
  return any;
}

int ModelView::pick(const Ray& ray, std::span<const Eigen::Matrix4f> body_poses) const {
  // Slab test against each part's bounds in its own (scaled) frame.
  float best = std::numeric_limits<float>::infinity();
  int best_body = -1;
  for (const Part& part : parts_) {
    if (part.body <= 0 || part.body >= static_cast<int>(body_poses.size())) continue;
    const Eigen::Matrix4f inverse = (body_poses[part.body] * part.local).inverse();
    const Eigen::Vector3f o = (inverse * ray.origin.homogeneous()).head<3>();
    const Eigen::Vector3f d = inverse.topLeftCorner<3, 3>() * ray.direction;
    float t_near = 0.0f, t_far = std::numeric_limits<float>::infinity();
    for (int k = 0; k < 3; ++k) {
      const float lo = part.mesh->minCorner()[k], hi = part.mesh->maxCorner()[k];
      if (std::abs(d[k]) < 1e-9f) {
        if (o[k] < lo || o[k] > hi) t_near = std::numeric_limits<float>::infinity();
        continue;
      }
      float t0 = (lo - o[k]) / d[k], t1 = (hi - o[k]) / d[k];
      if (t0 > t1) std::swap(t0, t1);
      t_near = std::max(t_near, t0);
      t_far = std::min(t_far, t1);
    }
    // t is in units of the transformed direction: compare hits by world distance.
    if (t_near <= t_far && std::isfinite(t_near)) {
      const Eigen::Vector3f hit_local = o + t_near * d;
      const Eigen::Vector3f hit_world = ((body_poses[part.body] * part.local) * hit_local.homogeneous()).head<3>();
      const float distance = (hit_world - ray.origin).norm();
      if (distance < best) {
        best = distance;
        best_body = part.body;
      }
    }
  }
  return best_body;
}

}  // namespace loopsim::render
