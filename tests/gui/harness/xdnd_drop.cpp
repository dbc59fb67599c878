// Drops a file on an X11 window the way a file manager does (the XDND
// protocol, version 5), so that the GUI tests drive GLFW's real drop callback:
//   loopsim_xdnd_drop WINDOW_ID X Y FILE
// It announces text/uri-list (XdndEnter), hovers at (X, Y) of the root window
// (XdndPosition) until the target accepts (XdndStatus), drops (XdndDrop), hands
// over "file://FILE" when the target asks for the selection, and waits for
// XdndFinished. Exit 0 when the target finished the drop, 1 on a refusal or
// a 10 s timeout (with a message), 2 on bad arguments.
#include <X11/Xatom.h>
#include <X11/Xlib.h>
#include <poll.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <string>

namespace {

struct Atoms {
  Atom aware, enter, position, status, drop, finished, selection, action_copy, uri_list;
  explicit Atoms(Display* d)
      : aware(XInternAtom(d, "XdndAware", False)),
        enter(XInternAtom(d, "XdndEnter", False)),
        position(XInternAtom(d, "XdndPosition", False)),
        status(XInternAtom(d, "XdndStatus", False)),
        drop(XInternAtom(d, "XdndDrop", False)),
        finished(XInternAtom(d, "XdndFinished", False)),
        selection(XInternAtom(d, "XdndSelection", False)),
        action_copy(XInternAtom(d, "XdndActionCopy", False)),
        uri_list(XInternAtom(d, "text/uri-list", False)) {}
};

void sendMessage(Display* d, Window target, Atom type, long l0, long l1, long l2, long l3, long l4) {
  XEvent event{};
  event.xclient.type = ClientMessage;
  event.xclient.window = target;
  event.xclient.message_type = type;
  event.xclient.format = 32;
  event.xclient.data.l[0] = l0;
  event.xclient.data.l[1] = l1;
  event.xclient.data.l[2] = l2;
  event.xclient.data.l[3] = l3;
  event.xclient.data.l[4] = l4;
  XSendEvent(d, target, False, NoEventMask, &event);
  XFlush(d);
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 5) {
    std::fprintf(stderr, "usage: %s WINDOW_ID X Y FILE\n", argv[0]);
    return 2;
  }
  const Window target = std::strtoul(argv[1], nullptr, 0);
  const long x = std::atol(argv[2]), y = std::atol(argv[3]);
  const std::string uri = "file://" + std::filesystem::absolute(argv[4]).string() + "\r\n";
  Display* d = XOpenDisplay(nullptr);
  if (d == nullptr) {
    std::fprintf(stderr, "xdnd_drop: no X display\n");
    return 1;
  }
  const Atoms atoms(d);
  const Window source = XCreateSimpleWindow(d, DefaultRootWindow(d), 0, 0, 1, 1, 0, 0, 0);
  XSetSelectionOwner(d, atoms.selection, source, CurrentTime);
  sendMessage(d, target, atoms.enter, static_cast<long>(source), 5L << 24, static_cast<long>(atoms.uri_list), None, None);
  sendMessage(d, target, atoms.position, static_cast<long>(source), 0, (x << 16) | y, CurrentTime,
              static_cast<long>(atoms.action_copy));

  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  bool dropped = false;
  while (std::chrono::steady_clock::now() < deadline) {
    if (XPending(d) == 0) {
      pollfd fd{ConnectionNumber(d), POLLIN, 0};
      poll(&fd, 1, 50);
      continue;
    }
    XEvent event;
    XNextEvent(d, &event);
    if (event.type == ClientMessage && event.xclient.message_type == atoms.status && !dropped) {
      if ((event.xclient.data.l[1] & 1) == 0) {
        std::fprintf(stderr, "xdnd_drop: the window refused text/uri-list\n");
        return 1;
      }
      sendMessage(d, target, atoms.drop, static_cast<long>(source), 0, CurrentTime, None, None);
      dropped = true;
    } else if (event.type == SelectionRequest) {
      // The target asks for the dropped data: the URI list, into its property.
      const XSelectionRequestEvent& request = event.xselectionrequest;
      XEvent reply{};
      reply.xselection.type = SelectionNotify;
      reply.xselection.requestor = request.requestor;
      reply.xselection.selection = request.selection;
      reply.xselection.target = request.target;
      reply.xselection.time = request.time;
      reply.xselection.property = None;
      if (request.target == atoms.uri_list) {
        XChangeProperty(d, request.requestor, request.property, atoms.uri_list, 8, PropModeReplace,
                        reinterpret_cast<const unsigned char*>(uri.data()), static_cast<int>(uri.size()));
        reply.xselection.property = request.property;
      }
      XSendEvent(d, request.requestor, False, NoEventMask, &reply);
      XFlush(d);
    } else if (event.type == ClientMessage && event.xclient.message_type == atoms.finished) {
      std::printf("xdnd_drop: dropped %s", uri.c_str());
      XCloseDisplay(d);
      return 0;
    }
  }
  std::fprintf(stderr, "xdnd_drop: no %s from window %s within 10 s\n", dropped ? "XdndFinished" : "XdndStatus", argv[1]);
  XCloseDisplay(d);
  return 1;
}
