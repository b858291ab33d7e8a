"""Start the vidmem_ros ingest and query nodes on a ROS 2 install.

    ros2 launch vidmem_ros vidmem.launch.py camera:=/camera/color/image_raw odom:=/odom audio:=/mic/audio \
        store:=/data/vidmem/memory.db profile:=cpu namespace:=robot1
    (pose_source:=pose_with_covariance pose_with_covariance:=/amcl_pose to stamp map poses instead of odometry;
    params_file:=my.params.yaml for a copy of config/ros/cpu.params.yaml; use_sim_time:=true on a bag with /clock)
"""

from launch import LaunchDescription
from launch.actions import DeclareLaunchArgument
from launch.substitutions import EnvironmentVariable, LaunchConfiguration, PathJoinSubstitution, PythonExpression
from launch_ros.actions import Node
from launch_ros.parameter_descriptions import ParameterFile
from launch_ros.substitutions import FindPackageShare


def generate_launch_description() -> LaunchDescription:
    args = {
        "camera": ("/camera/image_raw", "Image topic (raw); its /compressed sibling carries the compressed transport"),
        "image_transport": ("raw", "Camera transport: raw, compressed (camera/compressed) or both"),
        "odom": ("/odom", "nav_msgs/Odometry topic (pose_source odom, the default)"),
        "pose": ("/pose", "geometry_msgs/PoseStamped topic (pose_source pose)"),
        "pose_with_covariance": ("/amcl_pose", "PoseWithCovarianceStamped topic (pose_source pose_with_covariance)"),
        "pose_source": ("odom", "Which pose topic is stamped onto memory: odom, pose or pose_with_covariance"),
        "audio": ("/audio", "vidmem_ros/AudioChunk topic"),
        "store": ("~/.local/share/vidmem/memory.db", "SQLite file holding the memory"),
        "profile": ("cpu", "Model profile: cpu or gpu"),
        "config_file": ("", "YAML settings file; empty uses the profile's file"),
        "namespace": ("", "Namespace for both nodes"),
        "params_file": (
            "",
            "ROS parameter file (node: ros__parameters); empty uses the profile's, config/ros/<profile>.params.yaml",
        ),
        "use_sim_time": ("false", "Take time from /clock (bag replay with --clock)"),
        "log_level": ("info", "Log level of both nodes: debug, info, warn, error or fatal"),
        "autostart": (
            "true",
            "Configure and activate both lifecycle nodes at start; false leaves them unconfigured for a lifecycle "
            "manager",
        ),
    }
    declared = [
        DeclareLaunchArgument(name, default_value=default, description=text) for name, (default, text) in args.items()
    ]
    cfg = {name: LaunchConfiguration(name) for name in args}
    share = FindPackageShare("vidmem_ros")
    profile_params = PathJoinSubstitution([share, "config", "ros", [cfg["profile"], ".params.yaml"]])
    params_file = PythonExpression(["'", cfg["params_file"], "' or '", profile_params, "'"])
    # The file first: the arguments given on the command line override what it sets.
    params = [
        ParameterFile(params_file, allow_substs=True),
        {
            "store.path": cfg["store"],
            "profile": cfg["profile"],
            "config_file": cfg["config_file"],
            "ingest.pose_source": cfg["pose_source"],
            "ingest.image_transport": cfg["image_transport"],
            "use_sim_time": cfg["use_sim_time"],
            "autostart": cfg["autostart"],
        },
    ]
    remaps = [
        ("image", cfg["camera"]),
        ("image/compressed", [cfg["camera"], "/compressed"]),
        ("odom", cfg["odom"]),
        ("pose", cfg["pose"]),
        ("pose_with_covariance", cfg["pose_with_covariance"]),
        ("audio", cfg["audio"]),
    ]
    # The package's Fast DDS profile (large shared-memory segments for raw frames) unless the robot has its own.
    ours = PathJoinSubstitution([share, "config", "fastdds.xml"])
    env = {"FASTRTPS_DEFAULT_PROFILES_FILE": EnvironmentVariable("FASTRTPS_DEFAULT_PROFILES_FILE", default_value=ours)}
    nodes = [
        Node(
            package="vidmem_ros",
            executable=exe,
            name=name,
            namespace=cfg["namespace"],
            parameters=params,
            remappings=remaps,
            additional_env=env,
            ros_arguments=["--log-level", cfg["log_level"]],
            output="screen",
        )
        for exe, name in (("ingest_node", "vidmem_ingest"), ("query_node", "vidmem_query"))
    ]
    return LaunchDescription([*declared, *nodes])
